/** Stable error codes carried in a JSON-RPC error's `data.code` (RPC-3). */
export const ERROR_CODES = [
  'invalid_params',
  'not_found',
  'conflict',
  'too_large',
  'unauthorized',
  'storage',
  'unavailable',
  'rate_limited',
  'secret_file',
  'not_a_repository',
  'git_failed',
  'unsupported_media',
  'corrupt_media',
  'timeout',
  'media_tool_missing',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

/** JSON-RPC 2.0 numeric codes, chosen per stable code so generic clients still make sense of them. */
export const JSONRPC_CODES: Record<ErrorCode | 'parse_error' | 'method_not_found', number> = {
  parse_error: -32700,
  method_not_found: -32601,
  invalid_params: -32602,
  not_found: -32004,
  conflict: -32009,
  too_large: -32013,
  unauthorized: -32001,
  storage: -32050,
  unavailable: -32003,
  rate_limited: -32029,
  secret_file: -32043,
  not_a_repository: -32060,
  git_failed: -32061,
  unsupported_media: -32015,
  corrupt_media: -32022,
  timeout: -32008,
  media_tool_missing: -32051,
};
