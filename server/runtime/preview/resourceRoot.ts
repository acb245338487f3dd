import path from 'node:path';

/** Where a preview may read from (PRV-1). */
export interface ResourceRoot {
  /** Canonical folder that URL paths map onto. */
  root: string;
  /** The document's path under `root`, as segments. */
  documentSegments: string[];
  /** The root was refused and the document's folder too: the page reads only itself. */
  documentOnly: boolean;
}

/** The filesystem root, the home folder and every parent of home never serve as a root. */
export function isForbiddenRoot(folder: string, home: string): boolean {
  return path.parse(folder).root === folder || isInside(folder, home);
}

/** `candidate` is `folder` or below it (both canonical). */
export function isInside(folder: string, candidate: string): boolean {
  const relative = path.relative(folder, candidate);
  return relative === '' || (!relative.startsWith('..' + path.sep) && relative !== '..' && !path.isAbsolute(relative));
}

/**
 * PRV-1: the project folder when it contains the document, else the document's own folder; a
 * folder that may not be a root falls back to the next, and when the document's own folder may
 * not be one either, the document reads only itself. All paths are canonical.
 */
export function chooseResourceRoot(projectDirectory: string, documentPath: string, home: string): ResourceRoot {
  const documentFolder = path.dirname(documentPath);
  const root =
    isInside(projectDirectory, documentPath) && !isForbiddenRoot(projectDirectory, home)
      ? projectDirectory
      : documentFolder;
  const documentSegments = path.relative(root, documentPath).split(path.sep);
  return { root, documentSegments, documentOnly: isForbiddenRoot(root, home) };
}
