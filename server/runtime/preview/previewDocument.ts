import fs from 'node:fs';
import path from 'node:path';
import { invalidParams, notFound } from '../errors';
import { mimeTypeForPath } from '../../../lib/protocol/mimeTypes';
import { isInside } from '../files/pathInside';
import type { SecretFiles } from '../files/secretFiles';

/** The content types a preview renders as a page (SEC-6); everything else is opened as a file. */
const HTML_TYPES = new Set(['text/html', 'application/xhtml+xml']);

const NOT_HTML_MESSAGE = 'Only an HTML file (.html, .htm, .xhtml) can be previewed.';

const isHtmlName = (name: string) => HTML_TYPES.has(mimeTypeForPath(name));

/**
 * The document of a preview as a canonical file inside its project (FILE-3, SEC-2, SEC-6): an HTML
 * file by name both as asked and once resolved (a `notes.html` link to `.env` is no page), that
 * the secrets policy lets through as asked and on its canonical path (FILE-6), so neither it nor
 * the folder that becomes its root (PRV-1) is `.git`, `.ssh`, the data folder or the like,
 * whatever the PRV-2 dot-folder exception allows.
 */
export function canonicalDocument(projectDirectory: string, requestPath: string, secrets: SecretFiles): string {
  const asAsked = secrets.refusalOfNames(requestPath.split('/'), { path: requestPath });
  if (asAsked) throw asAsked;
  let real: string;
  try {
    real = fs.realpathSync.native(path.resolve(projectDirectory, requestPath.replace(/^\/+/, '')));
  } catch {
    throw notFound('No such document.', { path: requestPath });
  }
  const resolved = secrets.refusalOfPath(real, { path: requestPath });
  if (resolved) throw resolved;
  if (!isInside(projectDirectory, real))
    throw invalidParams('The document is outside the project folder.', { path: requestPath });
  if (!isFile(real)) throw invalidParams('Only a file can be previewed.', { path: requestPath });
  if (!isHtmlName(requestPath) || !isHtmlName(real)) throw invalidParams(NOT_HTML_MESSAGE, { path: requestPath });
  return real;
}

function isFile(real: string): boolean {
  try {
    return fs.statSync(real).isFile();
  } catch {
    return false;
  }
}
