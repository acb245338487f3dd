import type http from 'node:http';
import type { ConnectionGovernorOptions } from './connectionGovernor';

/** How long a client may take to send a request, and how many connections are served at once (SEC-9). */
export interface HttpLimits {
  /** From the first byte of a request to the end of its head. */
  headersTimeoutMs: number;
  /** From the first byte of a request to its last. */
  requestTimeoutMs: number;
  /** Open connections of every kind (WebSockets included); more are closed as they arrive. */
  maxConnections: number;
  /**
   * Bytes of request heads still unfinished, summed over every connection; past it the largest are
   * closed. Node keeps a head's bytes in its pooled parser after the connection closes (reused by
   * the next one, not returned), so this bounds what a flood of big slow heads can make the process hold.
   */
  maxUnfinishedHeadBytes: number;
}

export const DEFAULT_HTTP_LIMITS: HttpLimits = {
  headersTimeoutMs: 15_000,
  requestTimeoutMs: 30_000,
  maxConnections: 128,
  maxUnfinishedHeadBytes: 16 * 1024 * 1024,
};

/**
 * A request head may be this large. Chromium sends up to 180 cookies of 4 KiB each for one site,
 * and a preview can set them on the app's domain (SEC-8): the head must still be read so the
 * answer can clear them. The connection cap bounds the memory this takes.
 */
const MAX_REQUEST_HEAD_BYTES = 1024 * 1024;

/** How often Node looks for requests past their timeouts: a fraction of the shortest one. */
function checkingIntervalMs(limits: HttpLimits): number {
  return Math.max(50, Math.min(1_000, Math.floor(limits.headersTimeoutMs / 4)));
}

export function httpServerOptions(limits: HttpLimits): http.ServerOptions {
  return {
    maxHeaderSize: MAX_REQUEST_HEAD_BYTES,
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    connectionsCheckingInterval: checkingIntervalMs(limits),
  };
}

/** Under pressure a request head must arrive within this (or the headers timeout, if shorter). */
const PRESSURE_HEAD_TIMEOUT_MS = 2_000;

export function connectionGovernorOptions(limits: HttpLimits): ConnectionGovernorOptions {
  const pressureHeadTimeoutMs = Math.min(PRESSURE_HEAD_TIMEOUT_MS, limits.headersTimeoutMs);
  return {
    maxConnections: limits.maxConnections,
    maxUnfinishedHeadBytes: limits.maxUnfinishedHeadBytes,
    pressureHeadTimeoutMs,
    checkIntervalMs: Math.max(50, Math.min(250, Math.floor(pressureHeadTimeoutMs / 4))),
  };
}
