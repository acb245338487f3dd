import type { CallContext } from './methodHandlers';

/**
 * Output searches still running (PWA-2), by the device that asked and its search id, so the
 * device can stop one it no longer wants; a search also stops when its socket goes.
 */
export class RunningSearches {
  private readonly running = new Map<string, AbortController>();

  start(ctx: CallContext, searchId: string | undefined): AbortController {
    const search = new AbortController();
    if (ctx.signal) {
      if (ctx.signal.aborted) search.abort();
      else ctx.signal.addEventListener('abort', () => search.abort(), { once: true, signal: search.signal });
    }
    if (searchId !== undefined) {
      this.running.get(keyOf(ctx, searchId))?.abort();
      this.running.set(keyOf(ctx, searchId), search);
    }
    return search;
  }

  end(ctx: CallContext, searchId: string | undefined, search: AbortController): void {
    if (searchId !== undefined && this.running.get(keyOf(ctx, searchId)) === search)
      this.running.delete(keyOf(ctx, searchId));
    // Ends the listener on the socket's signal too.
    search.abort();
  }

  cancel(ctx: CallContext, searchId: string): void {
    this.running.get(keyOf(ctx, searchId))?.abort();
  }
}

// NOTE: keyed by device, so one device cannot stop another's search by guessing its id.
const keyOf = (ctx: CallContext, searchId: string) => `${ctx.identity?.deviceId ?? 'token'}\n${searchId}`;
