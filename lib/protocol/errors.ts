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
  /** SRC-2: a Codex conversation file the session reads is gone or unreadable; the app offers to choose it again. */
  'source_unavailable',
  /** SRC-3: bytes of that file a timeline page covered changed (not only appended): reload the timeline. */
  'reload_required',
  /** SRC-5: an ancestor rollout a forked Codex conversation's history starts from is missing. */
  'missing_history_source',
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
  source_unavailable: -32044,
  reload_required: -32045,
  missing_history_source: -32046,
};
