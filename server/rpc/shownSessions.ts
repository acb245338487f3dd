import type { CallContext } from './methodHandlers';

/**
 * The sessions each socket shows (UX-8 `sessions.seen` with `open`): a socket shows a session
 * until it says it left it, shows another in its place, or goes.
 */
export class ShownSessions {
  /** By socket (its `signal`, one per socket), each shown session's stop. */
  private readonly bySocket = new WeakMap<AbortSignal, Map<string, () => void>>();

  /** `stopWatching` null: the socket left the session (or never showed it). */
  show(ctx: CallContext, sessionId: string, stopWatching: (() => void) | null): void {
    const signal = ctx.signal;
    if (!signal) {
      stopWatching?.();
      return;
    }
    let shown = this.bySocket.get(signal);
    if (!shown) {
      const created = new Map<string, () => void>();
      shown = created;
      this.bySocket.set(signal, created);
      signal.addEventListener(
        'abort',
        () => {
          for (const stop of created.values()) stop();
          created.clear();
        },
        { once: true },
      );
    }
    shown.get(sessionId)?.();
    shown.delete(sessionId);
    if (stopWatching) shown.set(sessionId, stopWatching);
  }
}
