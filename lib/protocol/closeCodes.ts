/**
 * WebSocket close codes the runtime uses, so a client can tell why its socket went (RPC-2, SEC-9).
 * 1008/1009/1013 are the standard ones (RFC 6455 §7.4.1); 44xx are in the private range.
 */
export const CLOSE_CODES = {
  /** The runtime is shutting down. */
  goingAway: 1001,
  /** The client stopped reading its answers (SEC-9). */
  notReading: 1008,
  /** More bytes than allowed before `auth.hello` succeeded (SEC-9). */
  tooLargeBeforeAuth: 1009,
  /** Too many sockets are waiting to authenticate, or too many updates wait unread: retry later (SEC-9). */
  tryAgainLater: 1013,
  /** Not authenticated, a wrong token, or the device was revoked (RPC-2, SEC-1): pair again. */
  unauthorized: 4401,
  /** `auth.hello` was not sent in time (RPC-2). */
  authTimeout: 4408,
} as const;
