/**
 * Names the runtime never lists and never reads (FILE-3), wherever they appear in a path:
 * environment files, key stores and version-control internals. A short, stated list:
 *
 *   .env  .env.*  .git  .ssh  .gnupg  .aws  .docker  .kube  .netrc  .npmrc  .pypirc  .pgpass
 *
 * `.git` hides the whole folder (objects, config with remote credentials, hooks); files such as
 * `.gitignore` stay visible. Matching ignores case, as macOS and Windows file systems do.
 */
const HIDDEN_NAMES = new Set(['.env', '.git', '.ssh', '.gnupg', '.aws', '.docker', '.kube', '.netrc', '.npmrc', '.pypirc', '.pgpass']);

export const HIDDEN_SECRETS_MESSAGE = 'This path is hidden: secrets such as .env, .ssh and .git are never served.';

/**
 * NOTE: upper then lower, not only lower: case-insensitive volumes fold `ſ` to `s` and `ß` to
 * `ss`, which lower-casing alone leaves as they are, so `.ſsh` would open `.ssh` unseen.
 */
const foldCase = (name: string) => name.toUpperCase().toLowerCase();

export function isHiddenSecretName(name: string): boolean {
  const lower = foldCase(name);
  return HIDDEN_NAMES.has(lower) || lower.startsWith('.env.');
}

/** True when any segment of a path (split on `/` or the platform separator) is a hidden secret. */
export function pathHasHiddenSecret(segments: readonly string[]): boolean {
  return segments.some(isHiddenSecretName);
}
