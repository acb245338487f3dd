/**
 * Bundles each entry (`{ NAME: source relative to the root }`) into `outdir/NAME.mjs` (default
 * dist/) with its source map; with `ifStale`, only when a source changed. Resolves whether it built.
 */
export function buildBundle(
  entries: Record<string, string>,
  options?: { outdir?: string; ifStale?: boolean },
): Promise<boolean>;
