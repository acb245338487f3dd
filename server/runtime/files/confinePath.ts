import fs from 'node:fs';
import path from 'node:path';
import type { Project } from '../../../lib/protocol/rows';
import { invalidParams, notFound } from '../errors';
import { HIDDEN_SECRETS_MESSAGE, pathHasHiddenSecret } from './hiddenSecrets';

export interface ConfinedPath {
  /** Absolute, symlinks resolved. */
  canonical: string;
  /** The project the path was asked under. */
  root: string;
  stat: fs.Stats;
}

export interface ConfineOptions {
  /** Both the runtime's `--allow-external-files` and the call's `allowExternalFile` (FILE-3). */
  allowExternal: boolean;
}

const isInside = (root: string, candidate: string) => candidate === root || candidate.startsWith(root.endsWith(path.sep) ? root : root + path.sep);

/**
 * Resolves a path from the network against a registered project (FILE-3, SEC-2): the project must
 * be one `projects.list` reports; the path is relative to it, with `/` separators; its canonical
 * form (realpath: every symlink resolved) must stay inside the project unless external files are
 * allowed; no segment may be a hidden secret, neither as asked nor once resolved.
 */
export function confinePath(projects: readonly Project[], projectDirectory: string, requestPath: string, options: ConfineOptions): ConfinedPath {
  const project = projects.find((p) => p.directory === projectDirectory);
  if (!project) throw notFound('This folder is not a project of this runtime.', { projectDirectory });
  if (requestPath.includes('\0')) throw invalidParams('A path cannot contain a NUL character.');
  if (requestPath.includes('\\')) throw invalidParams('Paths use "/" as separator; a backslash is not allowed.');
  const absolute = path.isAbsolute(requestPath);
  if (absolute && !options.allowExternal) throw invalidParams('A path is relative to the project folder; absolute paths are not allowed.');
  const segments = requestPath.split('/').filter((s) => s !== '' && s !== '.');
  if (!absolute && segments.includes('..')) throw invalidParams('A path cannot contain "..".');
  if (pathHasHiddenSecret(segments)) throw notFound(HIDDEN_SECRETS_MESSAGE);

  const root = project.directory;
  const joined = absolute ? path.resolve(requestPath) : path.join(root, ...segments);
  let canonical: string;
  try {
    canonical = fs.realpathSync.native(joined);
  } catch {
    throw notFound('No such file or folder.', { path: requestPath });
  }
  const inside = isInside(root, canonical);
  if (!inside && !options.allowExternal) throw notFound('This path leads outside the project folder.', { path: requestPath });
  const resolvedSegments = inside ? path.relative(root, canonical).split(path.sep) : canonical.split(path.sep);
  if (pathHasHiddenSecret(resolvedSegments)) throw notFound(HIDDEN_SECRETS_MESSAGE);
  let stat: fs.Stats;
  try {
    stat = fs.statSync(canonical);
  } catch {
    throw notFound('No such file or folder.', { path: requestPath });
  }
  return { canonical, root, stat };
}

/** A listed symlink is shown only when its target could be read: inside the project and not hidden. */
export function linkTargetServable(root: string, canonical: string): boolean {
  return isInside(root, canonical) && !pathHasHiddenSecret(path.relative(root, canonical).split(path.sep));
}
