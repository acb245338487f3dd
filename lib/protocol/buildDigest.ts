import { z } from 'zod';

/**
 * A build of the app (RLY-5): every file it serves, by its path (`/…`), with the SHA-256 of its
 * bytes. The service worker (`sw.js`) is not in it: it embeds this list, so it cannot also be
 * named in it. The build's digest is the SHA-256 of the canonical text of this list.
 */
export type BuildFiles = Readonly<Record<string, string>>;

const Sha256Hex = z.string().regex(/^[0-9a-f]{64}$/, 'a SHA-256 is 64 lowercase hex digits');
/** A path of the build: no line breaks or spaces, so the canonical list has one reading. */
const BuildPath = z.string().regex(/^\/[^\s]{1,2047}$/, 'a build path starts with / and has no white space');

export const BuildFilesSchema = z.record(BuildPath, Sha256Hex);
/** `out/.build.json`, written by the build next to the files, read by the runtime for `app.build`. */
export const BuildInfoSchema = z.object({ digest: Sha256Hex, files: BuildFilesSchema });
export type BuildInfo = z.infer<typeof BuildInfoSchema>;

/**
 * The canonical text the digest is taken over: one line per file, `<sha256>  <path>\n` (the
 * `sha256sum` layout), sorted by path in UTF-16 code unit order, the same in every JavaScript engine.
 */
export function canonicalBuildList(files: BuildFiles): string {
  return Object.keys(files)
    .sort()
    .map((file) => `${files[file]}  ${file}\n`)
    .join('');
}

function hex(bytes: ArrayBuffer): string {
  return [...new Uint8Array(bytes)].map((byte) => byte.toString(16).padStart(2, '0')).join('');
}

/** SHA-256 (hex) of some bytes, through WebCrypto: the same code in Node, pages and the worker. */
export async function sha256Hex(bytes: Uint8Array<ArrayBuffer> | ArrayBuffer): Promise<string> {
  return hex(await crypto.subtle.digest('SHA-256', bytes));
}

/** The build's digest: SHA-256 (hex) of its canonical list. */
export function buildDigest(files: BuildFiles): Promise<string> {
  return sha256Hex(new TextEncoder().encode(canonicalBuildList(files)));
}

/** A subresource integrity value (`sha256-<base64>`) for a file's SHA-256 in hex. */
export function integrityOf(sha256: string): string {
  const bytes = sha256.match(/../g)?.map((pair) => parseInt(pair, 16)) ?? [];
  return `sha256-${btoa(String.fromCharCode(...bytes))}`;
}

/** The first 12 hex digits: enough for a person to compare two digests on screen. */
export function shortDigest(digest: string): string {
  return digest.slice(0, 12);
}
