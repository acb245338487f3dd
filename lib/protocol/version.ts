/** The public protocol version (RPC-1). Bump only for breaking changes; additions keep it. */
export const PROTOCOL_VERSION = 1;

/** Largest WebSocket text frame the runtime accepts (RPC-3). */
export const MAX_FRAME_BYTES = 32 * 1024 * 1024;

/** Largest slice one `run.chatCommandOutputRead` answers (OUT-5). */
export const MAX_COMMAND_OUTPUT_RANGE_BYTES = 256 * 1024;
