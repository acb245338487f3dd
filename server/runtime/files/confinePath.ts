import fs from 'node:fs';
import path from 'node:path';
import type { Project } from '../../../lib/protocol/rows';
import { invalidParams, notFound, type RuntimeError } from '../errors';
import { HIDDEN_SECRETS_MESSAGE, pathHasHiddenSecret } from './hiddenSecrets';
import { isInside, segmentsUnder } from './pathInside';

export interface ConfinedPath {
  /** Absolute, symlinks resolved when it was checked; checked again once opened (SEC-7). */
  canonical: string;
  /** The project the path was asked under. */
  root: string;
  /** Whether a path outside the project may be read (FILE-3). */
  allowExternal: boolean;
}

export interface ConfineOptions {
  /** Both the runtime's `--allow-external-files` and the call's `allowExternalFile` (FILE-3). */
  allowExternal: boolean;
}

/**
 * Why a canonical path may not be read, or null when it may (FILE-3): it must be inside the
 * project unless external files are allowed, and no name on the way may be a hidden secret. The
 * same rule runs on the path before opening and on what was opened (SEC-2, SEC-7).
 */
export function refusalOfCanonical(root: string, canonical: string, allowExternal: boolean, data?: Record<string, unknown>): RuntimeError | null {
  const inside = isInside(root, canonical);
  if (!inside && !allowExternal) return notFound('This path leads outside the project folder.', data);
  if (pathHasHiddenSecret(inside ? segmentsUnder(root, canonical) : canonical.split(path.sep))) return notFound(HIDDEN_SECRETS_MESSAGE, data);
  return null;
}

/**
 * Resolves a path from the network against a registered project (FILE-3, SEC-2): the project must
 * be one `projects.list` reports; the path is relative to it, with `/` separators; its canonical
 * form (realpath: every symlink resolved) must pass `refusalOfCanonical`, and no name may be a
 * hidden secret as asked either.
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
  const refusal = refusalOfCanonical(root, canonical, options.allowExternal, { path: requestPath });
  if (refusal) throw refusal;
  return { canonical, root, allowExternal: options.allowExternal };
}
