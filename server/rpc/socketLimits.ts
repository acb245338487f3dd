import { MAX_FRAME_BYTES } from '../../lib/protocol/version';
import { parseIntegerFlag } from '../../lib/shared/integerFlag';

/**
 * How much one socket may make the runtime hold (SEC-9). Unauthenticated sockets get a small
 * budget of bytes, a deadline and a cap on their number; authenticated ones get backpressure on
 * their answers.
 */
export interface SocketLimits {
  /** A frame larger than this is answered `too_large` and the socket stays open (RPC-3); MAX_FRAME_BYTES in use. */
  maxFrameBytes: number;
  /** Bytes a socket may send before `auth.hello` succeeds, all frames together. */
  preAuthBytes: number;
  /** Sockets that have not authenticated yet, at once; more are closed with 1013. */
  maxUnauthenticatedSockets: number;
  /** A socket that has not said hello by then is dropped (RPC-2). */
  authTimeoutMs: number;
  /** Answers queued unread past this: stop reading the socket's requests until they drain. */
  softBufferedBytes: number;
  /** Answers queued unread past this: drop the socket at once. */
  hardBufferedBytes: number;
  /** Over the soft cap for this long without draining: close the socket (1008). */
  stallMs: number;
  /** Distinct notifications kept (latest of each) for a socket over the soft cap; past it, 1013. */
  maxHeldNotifications: number;
  /** How often the runtime pings its relay link; a link silent for an interval is replaced (RLY-4). */
  relayPingMs: number;
}

export const DEFAULT_SOCKET_LIMITS: SocketLimits = {
  maxFrameBytes: MAX_FRAME_BYTES,
  preAuthBytes: 64 * 1024,
  maxUnauthenticatedSockets: 64,
  authTimeoutMs: 15_000,
  softBufferedBytes: 8 * 1024 * 1024,
  hardBufferedBytes: 64 * 1024 * 1024,
  stallMs: 30_000,
  maxHeldNotifications: 1_000,
  relayPingMs: 10_000,
};

/** A positive whole number from variable `name` when it is set, else `fallback`. */
function positiveVariable(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  return raw === undefined || raw === '' ? fallback : parseIntegerFlag(raw, name, { min: 1 });
}

/**
 * `HBCODE_SOCKET_STALL_MS` shortens the stall time (tests wait seconds, not half a minute); `HBCODE_MAX_FRAME_BYTES` lowers
 * the frame limit (tests send a MiB past it, not 32) and `HBCODE_PRE_AUTH_BYTES` the budget before
 * `auth.hello` (a trickling sender reaches it sooner); `HBCODE_AUTH_TIMEOUT_MS` the time a socket
 * has to say hello (a test's silent socket is dropped in a second, not 15); `HBCODE_RELAY_PING_MS`
 * the relay link's ping interval (a test's silent link is noticed in seconds).
 */
export function socketLimitsFromEnv(env: NodeJS.ProcessEnv): SocketLimits {
  return {
    ...DEFAULT_SOCKET_LIMITS,
    maxFrameBytes: positiveVariable(env, 'HBCODE_MAX_FRAME_BYTES', DEFAULT_SOCKET_LIMITS.maxFrameBytes),
    preAuthBytes: positiveVariable(env, 'HBCODE_PRE_AUTH_BYTES', DEFAULT_SOCKET_LIMITS.preAuthBytes),
    authTimeoutMs: positiveVariable(env, 'HBCODE_AUTH_TIMEOUT_MS', DEFAULT_SOCKET_LIMITS.authTimeoutMs),
    stallMs: positiveVariable(env, 'HBCODE_SOCKET_STALL_MS', DEFAULT_SOCKET_LIMITS.stallMs),
    relayPingMs: positiveVariable(env, 'HBCODE_RELAY_PING_MS', DEFAULT_SOCKET_LIMITS.relayPingMs),
  };
}
