import crypto from 'node:crypto';
import fs from 'node:fs';

/** Let's Encrypt's production directory: the CA a desktop uses unless told otherwise (RLY-7). */
export const DEFAULT_ACME_DIRECTORY = 'https://acme-v02.api.letsencrypt.org/directory';

/** The runtime's ACME flags, for `parseArgs`. */
export const ACME_PARSE_OPTIONS = {
  'acme-directory': { type: 'string' },
  'acme-ca': { type: 'string' },
} as const;

export interface AcmeCliOptions {
  /** `--acme-directory URL`: the ACME directory the desktop gets its relay certificate from. */
  directoryUrl: string;
  /** `--acme-ca FILE`: PEM certificates trusted for that directory's HTTPS instead of Node's roots (a test or private CA), else null. */
  caBundle: string | null;
}

export function parseAcmeOptions(values: { 'acme-directory'?: string; 'acme-ca'?: string }): AcmeCliOptions {
  const directoryUrl = values['acme-directory'] ?? DEFAULT_ACME_DIRECTORY;
  if (!URL.canParse(directoryUrl) || new URL(directoryUrl).protocol !== 'https:')
    throw new Error(`--acme-directory must be an https:// URL, not "${directoryUrl}".`);
  return { directoryUrl, caBundle: values['acme-ca'] === undefined ? null : readCaBundle(values['acme-ca']) };
}

function readCaBundle(file: string): string {
  let pem: string;
  try {
    pem = fs.readFileSync(file, 'utf8');
  } catch (error) {
    throw new Error(`--acme-ca: cannot read "${file}" (${(error as NodeJS.ErrnoException).code ?? String(error)}).`);
  }
  try {
    new crypto.X509Certificate(pem);
  } catch {
    throw new Error(`--acme-ca: "${file}" holds no PEM certificate.`);
  }
  return pem;
}
