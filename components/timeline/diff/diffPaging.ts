/** Lines a diff shows at first: the first screen renders at once whatever the diff's size (TL-1). */
export const FIRST_DIFF_LINES = 50;
/** How many more each "Show more" adds. */
export const MORE_DIFF_LINES = 400;
/** Lines before the first hunk (`diff --git`, `index`, `---`, `+++`) that parse to nothing shown. */
export const HEADER_LINES = 8;
