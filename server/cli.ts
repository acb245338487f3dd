import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { LIMIT_PARSE_OPTIONS, parseLimits, type Limits } from './cliLimits';
import { parseOrigin } from '../lib/nodeHttp/parseOrigin';
import { parsePublicOrigins } from './publicOrigins';
import type { PreviewOrigins } from './http/previewOrigins';
import { vapidSubjectFor } from './push/vapidSubject';
import { ACME_PARSE_OPTIONS, parseAcmeOptions, type AcmeCliOptions } from './relayLink/acme/acmeCliOptions';
import { parseSecretTypes } from './runtime/files/secretFileTypes';
import { parseIntegerFlag } from '../lib/shared/integerFlag';

export interface CliOptions {
  port: number;
  host: string;
  dataDir: string;
  projectDirs: string[];
  envToken: string | undefined;
  /** ORG-3: the app's address when it is reached through HTTPS (a tunnel), else null. */
  publicUrl: URL | null;
  /** ORG-3: where previews live when not on subdomains of hbcode.localhost. */
  previewOrigins: PreviewOrigins | null;
  /** Calls may read files outside the project folders when they ask to (FILE-3). */
  allowExternalFiles: boolean;
  /** `web.fetchPage` may reach loopback, link-local and private addresses (SEC-5 opt-in). */
  allowPrivateFetch: boolean;
  /** `--allow-secret-files gitconfig,npmrc`: credential file types every read path may serve (FILE-6). */
  allowSecretFiles: Set<string>;
  /** HTTP timeouts, the connection cap and the pairing-guess limit (SEC-9). */
  limits: Limits;
  /** PUSH-1: the push services' contact for this runtime, never a localhost address. */
  vapidSubject: string;
  /** RLY-1: the relay this desktop links to (`--relay https://HOST`), else null. */
  relay: URL | null;
  /**
   * RLY-6: the desktop serves its relay names (`<desktopId>.HOST` and `p-<desktopId>.HOST`) itself
   * through the relay's TLS port, with the certificate and key in `files`, or by ACME (RLY-7) when
   * `--acme-directory` is given; null without `--relay`, which needs one of the two.
   */
  relayTls: { port: number; files: { certFile: string; keyFile: string } | null } | null;
  /** RLY-7: where the desktop gets the certificate for its relay names (`--acme-directory URL`, `--acme-ca FILE`). */
  acme: AcmeCliOptions;
}

const DEFAULT_PORT = 8787;

/** The per-user data folder: XDG on Linux, Application Support on macOS, LOCALAPPDATA on Windows. */
function defaultDataDir(env: NodeJS.ProcessEnv = process.env): string {
  const home = os.homedir();
  if (process.platform === 'darwin') return path.join(home, 'Library', 'Application Support', 'HB Code');
  if (process.platform === 'win32')
    return path.join(env.LOCALAPPDATA ?? path.join(home, 'AppData', 'Local'), 'HB Code');
  return path.join(env.XDG_DATA_HOME || path.join(home, '.local', 'share'), 'hbcode');
}

function parsePort(value: string, source: string): number {
  return parseIntegerFlag(value, source, { min: 0, max: 65535 });
}

/** A project folder as the runtime records it: absolute, symlinks resolved (SEC-2). */
function canonicalProjectDir(dir: string): string {
  let real: string;
  try {
    real = fs.realpathSync(path.resolve(dir));
  } catch {
    throw new Error(`Project folder "${dir}" does not exist.`);
  }
  if (!fs.statSync(real).isDirectory()) throw new Error(`Project folder "${dir}" is not a folder.`);
  return real;
}

/** RLY-6, RLY-7: `--relay-cert FILE --relay-key FILE` or `--acme-directory URL`, `[--relay-tls-port N]`, only with `--relay`. */
function parseRelayTls(values: {
  relay?: string;
  'relay-cert'?: string;
  'relay-key'?: string;
  'relay-tls-port'?: string;
  'acme-directory'?: string;
}): CliOptions['relayTls'] {
  const {
    relay,
    'relay-cert': certFile,
    'relay-key': keyFile,
    'relay-tls-port': port,
    'acme-directory': acmeDirectory,
  } = values;
  if (certFile === undefined && keyFile === undefined && acmeDirectory === undefined) {
    if (port !== undefined)
      throw new Error('--relay-tls-port needs --relay-cert and --relay-key, or --acme-directory.');
    // RLY-6: through a relay the desktop serves everything itself over TLS it ends: it needs a certificate.
    if (relay !== undefined)
      throw new Error(
        "--relay needs a certificate for the desktop's relay names: --acme-directory URL (an ACME CA, e.g. https://acme-v02.api.letsencrypt.org/directory), or --relay-cert FILE and --relay-key FILE.",
      );
    return null;
  }
  if ((certFile === undefined) !== (keyFile === undefined))
    throw new Error('Give --relay-cert and --relay-key together.');
  if (certFile !== undefined && acmeDirectory !== undefined)
    throw new Error('Give --relay-cert and --relay-key, or --acme-directory, not both.');
  if (relay === undefined)
    throw new Error(
      certFile !== undefined ? '--relay-cert and --relay-key need --relay.' : '--acme-directory needs --relay.',
    );
  const tlsPort = port === undefined ? 443 : parsePort(port, '--relay-tls-port');
  if (tlsPort === 0) throw new Error("--relay-tls-port must be the relay's public TLS port, from 1 to 65535.");
  return {
    port: tlsPort,
    files:
      certFile !== undefined && keyFile !== undefined
        ? { certFile: path.resolve(certFile), keyFile: path.resolve(keyFile) }
        : null,
  };
}

/** `npm start -- [--port N] [--host H] [--data-dir D] [--allow-external-files] [--allow-private-fetch] [--allow-secret-files TYPES] [--vapid-subject S] [--relay URL (--relay-cert F --relay-key F | --acme-directory URL) [--relay-tls-port N]] [--acme-ca FILE] [limits…] [DIR…]` with HBCODE_* fallbacks (RPC-5). */
export function parseCli(argv: string[], env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): CliOptions {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      port: { type: 'string' },
      host: { type: 'string' },
      'data-dir': { type: 'string' },
      'public-url': { type: 'string' },
      'preview-origin-template': { type: 'string' },
      'preview-origin': { type: 'string' },
      'allow-external-files': { type: 'boolean' },
      'allow-private-fetch': { type: 'boolean' },
      'allow-secret-files': { type: 'string', multiple: true },
      'vapid-subject': { type: 'string' },
      relay: { type: 'string' },
      'relay-cert': { type: 'string' },
      'relay-key': { type: 'string' },
      'relay-tls-port': { type: 'string' },
      ...ACME_PARSE_OPTIONS,
      ...LIMIT_PARSE_OPTIONS,
    },
  });
  const port =
    values.port !== undefined
      ? parsePort(values.port, '--port')
      : env.HBCODE_PORT
        ? parsePort(env.HBCODE_PORT, 'HBCODE_PORT')
        : DEFAULT_PORT;
  const dataDir = path.resolve(values['data-dir'] ?? (env.HBCODE_DATA_DIR || defaultDataDir(env)));
  const dirs = positionals.length > 0 ? positionals : [cwd];
  const projectDirs = [...new Set(dirs.map(canonicalProjectDir))];
  const { publicUrl, previewOrigins } = parsePublicOrigins(
    values['public-url'],
    values['preview-origin-template'],
    values['preview-origin'],
  );
  return {
    port,
    host: values.host ?? '127.0.0.1',
    dataDir,
    projectDirs,
    envToken: env.HBCODE_TOKEN || undefined,
    publicUrl,
    previewOrigins,
    allowExternalFiles: values['allow-external-files'] === true,
    allowPrivateFetch: values['allow-private-fetch'] === true,
    allowSecretFiles: parseSecretTypes((values['allow-secret-files'] ?? []).join(',')),
    limits: parseLimits(values, env),
    vapidSubject: vapidSubjectFor(values['vapid-subject'] ?? (env.HBCODE_VAPID_SUBJECT || undefined), publicUrl),
    relay: values.relay === undefined ? null : parseOrigin(values.relay, '--relay'),
    relayTls: parseRelayTls(values),
    acme: parseAcmeOptions(values),
  };
}
