/**
 * Where highlighting stops (HL-2), stated in the view when reached: past these the text shows
 * plain instead of freezing the worker or the page.
 */
/** Files larger than this show as plain text. */
export const MAX_HIGHLIGHT_BYTES = 4 * 1024 * 1024;
/** Lines longer than this are left untokenized (minified bundles, data blobs). */
export const MAX_HIGHLIGHT_LINE_LENGTH = 2_000;
/** The first batch: about a screen or two, so the first lines show as soon as possible. */
export const FIRST_BATCH_LINES = 200;
/** Later batches: large enough to finish soon, small enough that each reply is cheap to take in. */
export const BATCH_LINES = 500;
/** Text files larger than this are not shown at all, only offered for download. */
export const MAX_TEXT_VIEW_BYTES = 32 * 1024 * 1024;
