import path from 'node:path';
import { isInside, segmentsUnder } from '../files/pathInside';
import type { SecretFiles } from '../files/secretFiles';

/** Where a preview may read from (PRV-1). */
export interface ResourceRoot {
  /** Canonical folder that URL paths map onto. */
  root: string;
  /** The document's path under `root`, as segments. */
  documentSegments: string[];
  /** The root was refused and the document's folder too: the page reads only itself. */
  documentOnly: boolean;
}

/**
 * The filesystem root, the home folder and every parent of home never serve as a root (PRV-1),
 * nor does a folder the secrets policy refuses, such as `~/.ssh` or the data folder (SEC-6, FILE-6).
 */
function isForbiddenRoot(folder: string, home: string, secrets: SecretFiles): boolean {
  return path.parse(folder).root === folder || isInside(folder, home) || !secrets.servesPath(folder);
}

/**
 * PRV-1: the project folder when it contains the document, else the document's own folder; a
 * folder that may not be a root falls back to the next, and when the document's own folder may
 * not be one either, the document reads only itself. All paths are canonical.
 */
export function chooseResourceRoot(
  projectDirectory: string,
  documentPath: string,
  home: string,
  secrets: SecretFiles,
): ResourceRoot {
  const documentFolder = path.dirname(documentPath);
  const root =
    isInside(projectDirectory, documentPath) && !isForbiddenRoot(projectDirectory, home, secrets)
      ? projectDirectory
      : documentFolder;
  return {
    root,
    documentSegments: segmentsUnder(root, documentPath),
    documentOnly: isForbiddenRoot(root, home, secrets),
  };
}
