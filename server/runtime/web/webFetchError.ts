import type { ErrorCode } from '../../../lib/protocol/errors';
import type { WebFetchFailure } from '../../../lib/protocol/webPage';
import { RuntimeError } from '../errors';

/** The stable code each failure is answered with; `data.reason` says which failure it was. */
const CODE_OF: Record<WebFetchFailure, ErrorCode> = {
  bad_url: 'invalid_params',
  unsupported_scheme: 'invalid_params',
  not_html: 'invalid_params',
  not_image: 'invalid_params',
  too_large: 'too_large',
  dns: 'unavailable',
  tls: 'unavailable',
  connection: 'unavailable',
  timeout: 'unavailable',
  too_many_redirects: 'unavailable',
  blocked_address: 'invalid_params',
};

export function webFetchError(
  reason: WebFetchFailure,
  message: string,
  data: Record<string, unknown> = {},
): RuntimeError {
  return new RuntimeError(CODE_OF[reason], message, { ...data, reason });
}

const DNS_CODES = new Set([
  'ENOTFOUND',
  'EAI_AGAIN',
  'EAI_NONAME',
  'EAI_FAIL',
  'ENODATA',
  'ESERVFAIL',
  'ENONAME',
  'EREFUSED',
]);

/** What a socket-level error from `http`/`https` means for the person who asked for the page. */
export function errorOfRequest(error: unknown, url: URL): RuntimeError {
  // A refusal from the guarded lookup already says what it is (SEC-5).
  if (error instanceof RuntimeError) return error;
  const code = typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : '';
  const host = url.hostname;
  if (DNS_CODES.has(code))
    return webFetchError('dns', `Could not find the address of ${host} (DNS: ${code}).`, { host });
  if (
    /^(ERR_TLS|ERR_SSL|CERT_|UNABLE_TO_|DEPTH_ZERO|SELF_SIGNED|EPROTO$|HOSTNAME_MISMATCH)/.test(code) ||
    code.includes('CERT')
  ) {
    return webFetchError('tls', `The secure connection to ${host} failed (${code}).`, { host });
  }
  return webFetchError('connection', `Could not connect to ${host} (${code || 'connection failed'}).`, { host });
}
