import type { AgentItem, TimelineRow } from '../../../lib/protocol/rows';
import type { Logger } from '../log';
import { wireItemRow } from './itemRows';
import { targetOf, type LiveOverlayStore } from './liveOverlay';
import { RowThrottle } from './rowThrottle';

export interface LiveItemsDeps {
  overlay: LiveOverlayStore;
  publish: (sessionId: string, row: TimelineRow, revision: number) => void;
  log: Logger;
}

const keyOf = (sessionId: string, runId: string, target: string, itemId: string) =>
  [sessionId, runId, target, itemId].join('\u0000');

/**
 * `AgentRunContext.item` (TL-1, TL-3): each item's newest state is written to the live overlay
 * and published with its revision, at most every 100 ms per item and always once after its last
 * change, like command rows (SES-4). A write goes to SQLite before its row is published, so
 * what any device was shown survives a runtime kill.
 */
export class LiveItems {
  private readonly latest = new Map<string, AgentItem>();
  private readonly throttle: RowThrottle;

  constructor(private readonly deps: LiveItemsDeps) {
    this.throttle = new RowThrottle((key) => this.write(key));
  }

  item(sessionId: string, runId: string, item: AgentItem): void {
    const key = keyOf(sessionId, runId, targetOf(sessionId, item.parentItemId), item.itemId);
    this.latest.set(key, item);
    this.throttle.touch(key);
  }

  private write(key: string): void {
    const item = this.latest.get(key);
    if (!item) return;
    this.latest.delete(key);
    const [sessionId, runId] = key.split('\u0000') as [string, string];
    try {
      const revision = this.deps.overlay.upsert(sessionId, runId, item);
      this.deps.publish(sessionId, wireItemRow(item, sessionId, runId, 'live'), revision);
    } catch (error) {
      this.deps.log.error('live item not kept', {
        sessionId,
        runId,
        itemId: item.itemId,
        reason: (error as Error).message,
      });
    }
  }

  /** The run ended: its last states are written now, before the run is forgotten. */
  flushRun(sessionId: string, runId: string): void {
    const prefix = `${sessionId}\u0000${runId}\u0000`;
    const ofRun = (key: string) => key.startsWith(prefix);
    this.throttle.flushMatching(ofRun);
    this.throttle.forget(ofRun);
  }

  forgetSession(sessionId: string): void {
    const prefix = `${sessionId}\u0000`;
    this.throttle.forget((key) => key.startsWith(prefix));
    for (const key of this.latest.keys()) if (key.startsWith(prefix)) this.latest.delete(key);
  }

  /** Shutdown: every pending state is written. */
  flush(): void {
    this.throttle.flush();
  }
}
