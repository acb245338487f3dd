import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { writeOwnerOnlyFileAtomically } from '../../runtime/store/writeOwnerOnlyFile';

const ACCOUNT_KEY_FILE = 'account-key.pem';
const ACCOUNT_URL_FILE = 'account-url.txt';
const CERTIFICATE_KEY_FILE = 'certificate-key.pem';
const CERTIFICATE_CHAIN_FILE = 'certificate.pem';

/** A certificate's private key and its chain (leaf first), both PEM, as stored. */
export interface StoredCertificate {
  keyPem: string;
  chainPem: string;
}

/**
 * The desktop's ACME files (RLY-7), in `acme/<directory>/` of the data folder (0700): one folder
 * per ACME directory, since an account belongs to its CA and a certificate from a test CA must
 * never be served as one from the production CA. Every file is owner-only (0600) and replaced
 * atomically. The certificate's key and chain are two files, so a crash between the two writes
 * can pair a new key with the old chain: the reader checks that they belong together.
 */
export class AcmeCertificateFiles {
  readonly dir: string;

  constructor(dataDir: string, directoryUrl: string) {
    this.dir = path.join(dataDir, 'acme', directoryFolderName(directoryUrl));
  }

  readAccountKey(): string | null {
    return this.read(ACCOUNT_KEY_FILE);
  }

  writeAccountKey(keyPem: string): void {
    writeOwnerOnlyFileAtomically(path.join(this.dir, ACCOUNT_KEY_FILE), keyPem);
  }

  /** The account's URL at the CA, once registered: with it, a restart does not register again. */
  readAccountUrl(): string | null {
    return this.read(ACCOUNT_URL_FILE)?.trim() || null;
  }

  writeAccountUrl(url: string): void {
    writeOwnerOnlyFileAtomically(path.join(this.dir, ACCOUNT_URL_FILE), url);
  }

  readCertificate(): StoredCertificate | null {
    const keyPem = this.read(CERTIFICATE_KEY_FILE);
    const chainPem = this.read(CERTIFICATE_CHAIN_FILE);
    return keyPem === null || chainPem === null ? null : { keyPem, chainPem };
  }

  /** The key first: a chain is never on disk without the key it was issued for having been written. */
  writeCertificate(certificate: StoredCertificate): void {
    writeOwnerOnlyFileAtomically(path.join(this.dir, CERTIFICATE_KEY_FILE), certificate.keyPem);
    writeOwnerOnlyFileAtomically(path.join(this.dir, CERTIFICATE_CHAIN_FILE), certificate.chainPem);
  }

  /** Keeps a file that could not be used beside its replacement (`NAME.unusable`), so nothing is lost. */
  setAsideAccountKey(): string {
    const from = path.join(this.dir, ACCOUNT_KEY_FILE);
    const to = `${from}.unusable`;
    fs.renameSync(from, to);
    fs.rmSync(path.join(this.dir, ACCOUNT_URL_FILE), { force: true });
    return to;
  }

  private read(name: string): string | null {
    try {
      return fs.readFileSync(path.join(this.dir, name), 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
  }
}

/** `acme-v02.api.letsencrypt.org-3f1c0a9b2d4e`: readable, and distinct for every directory URL. */
function directoryFolderName(directoryUrl: string): string {
  const host = new URL(directoryUrl).host.toLowerCase().replace(/[^a-z0-9.-]/g, '-');
  const digest = crypto.createHash('sha256').update(directoryUrl).digest('hex').slice(0, 12);
  return `${host}-${digest}`;
}
