import path from 'node:path';

/**
 * `candidate` is `folder` or below it; both absolute and canonical. The one containment test of
 * the runtime (SEC-2): file reads, preview roots and preview resources all ask here.
 */
export function isInside(folder: string, candidate: string): boolean {
  const relative = path.relative(folder, candidate);
  return relative === '' || (relative !== '..' && !relative.startsWith('..' + path.sep) && !path.isAbsolute(relative));
}

/** The names on the way from `folder` down to `candidate` (none for the folder itself); `candidate` must be inside. */
export function segmentsUnder(folder: string, candidate: string): string[] {
  const relative = path.relative(folder, candidate);
  return relative === '' ? [] : relative.split(path.sep);
}
