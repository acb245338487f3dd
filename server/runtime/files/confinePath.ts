import fs from 'node:fs';
import path from 'node:path';
import type { Project } from '../../../lib/protocol/rows';
import { invalidParams, notFound, type RuntimeError } from '../errors';
import { isInside } from './pathInside';
import type { SecretFiles } from './secretFiles';

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
  /** The secrets policy (FILE-6). */
  secrets: SecretFiles;
}

/**
 * Why a canonical path may not be read, or null when it may (FILE-3, FILE-6): it must be inside
 * the project unless external files are allowed, and the secrets policy must let it through. The
 * same rule runs on the path before opening and on what was opened (SEC-2, SEC-7).
 */
export function refusalOfCanonical(
  root: string,
  canonical: string,
  options: ConfineOptions,
  data?: Record<string, unknown>,
): RuntimeError | null {
  if (!options.allowExternal && !isInside(root, canonical))
    return notFound('This path leads outside the project folder.', data);
  return options.secrets.refusalOfPath(canonical, data);
}

/**
 * Resolves a path from the network against a registered project (FILE-3, SEC-2): the project must
 * be one `projects.list` reports; the path is relative to it, with `/` separators; its names as
 * asked must pass the secrets policy (FILE-6), and so must its canonical form (realpath: every
 * symlink resolved), through `refusalOfCanonical`.
 */
export function confinePath(
  projects: readonly Project[],
  projectDirectory: string,
  requestPath: string,
  options: ConfineOptions,
): ConfinedPath {
  const project = projects.find((p) => p.directory === projectDirectory);
  if (!project) throw notFound('This folder is not a project of this runtime.', { projectDirectory });
  if (requestPath.includes('\0')) throw invalidParams('A path cannot contain a NUL character.');
  if (requestPath.includes('\\')) throw invalidParams('Paths use "/" as separator; a backslash is not allowed.');
  const absolute = path.isAbsolute(requestPath);
  if (absolute && !options.allowExternal)
    throw invalidParams('A path is relative to the project folder; absolute paths are not allowed.');
  const segments = requestPath.split('/').filter((s) => s !== '' && s !== '.');
  if (!absolute && segments.includes('..')) throw invalidParams('A path cannot contain "..".');
  const asAsked = options.secrets.refusalOfNames(segments, { path: requestPath });
  if (asAsked) throw asAsked;

  const root = project.directory;
  const joined = absolute ? path.resolve(requestPath) : path.join(root, ...segments);
  let canonical: string;
  try {
    canonical = fs.realpathSync.native(joined);
  } catch {
    throw notFound('No such file or folder.', { path: requestPath });
  }
  const refusal = refusalOfCanonical(root, canonical, options, { path: requestPath });
  if (refusal) throw refusal;
  return { canonical, root, allowExternal: options.allowExternal };
}
