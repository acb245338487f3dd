import type { MethodResult } from '../../protocol/methods';
import type { TimelineRow } from '../../protocol/rows';
import { RpcError, type RpcClient } from '../rpcClient';
import { throttledWriter, type ThrottledWriter } from '../throttledWriter';
import {
  EMPTY_TIMELINE_ROWS,
  joinsShownRows,
  withNewestPage,
  withOlderPage,
  withRemoved,
  withRow,
  type TimelineRows,
} from './timelineMerge';
import { indexedDbTimelinePages, type TimelinePageCache } from './timelinePageCache';

/** What a timeline view shows (TL-3, TL-4). */
export interface TimelineSnapshot {
  /** Oldest first. */
  rows: readonly TimelineRow[];
  /** Whether older rows exist (online: the runtime said so; offline: the last page read said so). */
  hasOlder: boolean;
  loadingOlder: boolean;
  /** True while the first page is being read. */
  opening: boolean;
  /** The rows shown are what this device saved, not the runtime's answer. */
  offline: boolean;
  /** When the rows shown offline were saved; null online. */
  savedAt: number | null;
  error: string | null;
  /** The runtime's `data.code` for `error` (RPC-3): the view offers what fits (SRC-2, SRC-3). */
  errorCode: string | null;
}

export interface TimelineStoreOptions {
  client: RpcClient | null;
  sessionId: string;
  /** null: the session's own timeline; a subagent row's itemId: that subagent's. */
  parentItemId: string | null;
  /** Rows per older page asked for. */
  pageSize?: number;
  /** Rows of the first (newest) page: fewer, so the first rows show sooner (TL-4). Default: `pageSize` when given, else 50. */
  firstPageSize?: number;
  cache?: TimelinePageCache;
}

type TimelinePage = MethodResult<'sessions.timeline'>;
type Notice =
  | { kind: 'row'; row: TimelineRow; revision: number | undefined }
  | { kind: 'removed'; ids: string[]; revision: number };

export const DEFAULT_TIMELINE_PAGE_SIZE = 100;
/** About two phone screens of rows: enough to show at once, few enough that a long history opens as fast as a short one. */
export const DEFAULT_FIRST_PAGE_SIZE = 50;
/** Live rows change up to 10 times a second per item: the newest page is saved at most once a second. */
const NEWEST_PAGE_SAVE_INTERVAL_MS = 1000;

const isDisconnected = (error: unknown) => error instanceof RpcError && error.code === 'closed';
/** A failed read as the view shows it: its sentence and its stable code. */
const failureOf = (error: unknown) => ({
  error: error instanceof Error ? error.message : String(error),
  errorCode: error instanceof RpcError ? error.code : null,
});

/**
 * One timeline as the app shows it (TL-3, TL-4): opens at the newest page, merges live rows and
 * removals by row id (a newer revision wins), reads older pages on demand, keeps every page read
 * on this device and serves them when the runtime cannot be reached.
 */
export class TimelineStore {
  private view: TimelineRows = EMPTY_TIMELINE_ROWS;
  private snapshot: TimelineSnapshot = {
    rows: [],
    hasOlder: false,
    loadingOlder: false,
    opening: true,
    offline: false,
    savedAt: null,
    error: null,
    errorCode: null,
  };
  private readonly listeners = new Set<() => void>();
  private older: string | null = null;
  /** The `older` cursor of the newest page itself, saved with it. */
  private newestOlder: string | null = null;
  /** Notifications that arrived before the newest page: applied after it, in order. */
  private early: Notice[] | null = [];
  private readonly stops: (() => void)[] = [];
  private readonly cache: TimelinePageCache;
  private readonly pageSize: number;
  private readonly firstPageSize: number;
  private readonly newestWriter: ThrottledWriter<{ rows: TimelineRow[]; older: string | null; revision: number }>;
  private revision = 0;
  private closed = false;

  private client: RpcClient | null;

  constructor(private readonly options: TimelineStoreOptions) {
    this.client = options.client;
    this.cache = options.cache ?? indexedDbTimelinePages;
    this.pageSize = options.pageSize ?? DEFAULT_TIMELINE_PAGE_SIZE;
    this.firstPageSize = options.firstPageSize ?? options.pageSize ?? DEFAULT_FIRST_PAGE_SIZE;
    this.newestWriter = throttledWriter((page) => this.savePage(null, page), NEWEST_PAGE_SAVE_INTERVAL_MS);
  }

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  getSnapshot(): TimelineSnapshot {
    return this.snapshot;
  }

  private update(change: Partial<TimelineSnapshot>): void {
    if (this.closed) return;
    this.snapshot = { ...this.snapshot, ...change, rows: this.view.rows, hasOlder: this.older !== null };
    for (const listener of this.listeners) listener();
  }

  private belongsHere(row: TimelineRow): boolean {
    const parent = 'parentItemId' in row ? row.parentItemId : null;
    return parent === this.options.parentItemId;
  }

  private listen(client: RpcClient): void {
    const { sessionId } = this.options;
    this.stops.push(
      client.onNotification('timeline.row', (params) => {
        if (params.sessionId === sessionId && this.belongsHere(params.row))
          this.notice({ kind: 'row', row: params.row, revision: params.revision });
      }),
      client.onNotification('timeline.removed', (params) => {
        if (params.sessionId === sessionId)
          this.notice({ kind: 'removed', ids: params.ids, revision: params.revision });
      }),
    );
  }

  private notice(notice: Notice): void {
    if (this.early) {
      this.early.push(notice);
      return;
    }
    this.apply(notice);
    this.update({});
    this.saveNewestRows();
  }

  private apply(notice: Notice): void {
    if (notice.revision !== undefined) this.revision = Math.max(this.revision, notice.revision);
    this.view =
      notice.kind === 'row'
        ? withRow(this.view, notice.row, notice.revision)
        : withRemoved(this.view, notice.ids, notice.revision);
  }

  /** Reads the newest page: from the runtime, or, when it cannot be reached, as this device saved it. */
  open(): Promise<void> {
    return this.readNewest(true);
  }

  /** Drops the rows shown and reads the newest page again (SRC-3: the source changed under them). */
  reload(): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.stopListening();
    this.view = EMPTY_TIMELINE_ROWS;
    this.older = null;
    this.newestOlder = null;
    this.update({ opening: true, loadingOlder: false, error: null, errorCode: null });
    return this.readNewest(false);
  }

  /**
   * The connection changed (a reconnect, or lost: null). The rows shown stay; a new connection
   * reads the newest page again and merges it, keeping the older pages read before.
   */
  setClient(client: RpcClient | null): void {
    if (client === this.client || this.closed) return;
    this.stopListening();
    this.client = client;
    if (client) void this.readNewest(false);
    else this.update({ offline: true });
  }

  private async readNewest(first: boolean): Promise<void> {
    const client = this.client;
    if (client) {
      this.early = [];
      this.listen(client);
    }
    try {
      if (!client) throw new RpcError('closed', 'Not connected to the computer.');
      const page = await client.call('sessions.timeline', this.params(null, this.firstPageSize));
      if (client !== this.client) return;
      this.showNewest(page);
      this.update({ opening: false, offline: false, savedAt: null, error: null, errorCode: null });
      void this.savePage(null, { rows: page.rows, older: page.older ?? null, revision: page.revision ?? 0 });
    } catch (error) {
      if (client !== this.client) return;
      this.early = null;
      if (!isDisconnected(error)) this.update({ opening: false, ...failureOf(error) });
      else if (first) await this.openSaved();
      else this.update({ offline: true });
    }
  }

  private async openSaved(): Promise<void> {
    const saved = await this.readSaved(null);
    if (saved) {
      this.view = withNewestPage(EMPTY_TIMELINE_ROWS, saved.rows, saved.revision);
      this.older = saved.older;
      this.newestOlder = saved.older;
    }
    this.update({
      opening: false,
      offline: true,
      savedAt: saved?.savedAt ?? null,
      error: saved ? null : 'This timeline is not saved on this device.',
      errorCode: null,
    });
  }

  private params(before: string | null, limit: number) {
    const { sessionId, parentItemId } = this.options;
    return {
      sessionId,
      limit,
      ...(parentItemId === null ? {} : { parentItemId }),
      ...(before === null ? {} : { before }),
    };
  }

  private showNewest(page: TimelinePage): void {
    // After a reconnect the older pages read before keep their cursor when the new page joins
    // them; after a gap the page's own cursor reads back through it (rows shown are not repeated).
    const joins = joinsShownRows(this.view, page.rows);
    const hadOlder = this.view.olderIds.size > 0 || this.view.rows.length > 0;
    this.view = withNewestPage(this.view, page.rows, page.revision);
    this.revision = Math.max(this.revision, page.revision ?? 0);
    this.newestOlder = page.older ?? null;
    if (!hadOlder || !joins || this.view.olderIds.size === 0) this.older = this.newestOlder;
    const early = this.early ?? [];
    this.early = null;
    for (const notice of early)
      if (notice.revision === undefined || notice.revision > (page.revision ?? -1)) this.apply(notice);
  }

  /** Reads the page just older than the rows shown (online), or the one this device saved for it (offline). */
  async loadOlder(): Promise<void> {
    const before = this.older;
    if (before === null || this.snapshot.loadingOlder || this.snapshot.opening) return;
    this.update({ loadingOlder: true });
    const client = this.client;
    try {
      if (!client || this.snapshot.offline) throw new RpcError('closed', 'Not connected to the computer.');
      const page = await client.call('sessions.timeline', this.params(before, this.pageSize));
      this.showOlder(page.rows, page.older ?? null, page.revision);
      this.update({ loadingOlder: false, error: null, errorCode: null });
      void this.savePage(before, { rows: page.rows, older: page.older ?? null, revision: page.revision ?? 0 });
    } catch (error) {
      if (!isDisconnected(error)) {
        this.update({ loadingOlder: false, ...failureOf(error) });
        return;
      }
      const saved = await this.readSaved(before);
      if (saved) this.showOlder(saved.rows, saved.older, saved.revision);
      this.update({
        loadingOlder: false,
        offline: true,
        error: saved ? null : 'Older rows are not saved on this device.',
        errorCode: null,
      });
    }
  }

  private showOlder(rows: readonly TimelineRow[], older: string | null, revision: number | undefined): void {
    this.view = withOlderPage(this.view, rows, revision);
    this.older = older;
  }

  /** Live changes keep the saved newest page current, so what was last shown is shown offline. */
  private saveNewestRows(): void {
    if (this.snapshot.offline) return;
    const rows = this.view.rows.filter((row) => !this.view.olderIds.has(row.id));
    this.newestWriter.push({ rows, older: this.newestOlder, revision: this.revision });
  }

  private async readSaved(before: string | null) {
    try {
      return await this.cache.read(this.options.sessionId, this.options.parentItemId, before);
    } catch (error) {
      console.warn('Could not read the saved timeline', error);
      return null;
    }
  }

  private async savePage(
    before: string | null,
    page: { rows: TimelineRow[]; older: string | null; revision: number },
  ): Promise<void> {
    try {
      await this.cache.save(this.options.sessionId, this.options.parentItemId, before, page);
    } catch (error) {
      console.warn('Could not save the timeline on this device', error);
    }
  }

  private stopListening(): void {
    for (const stop of this.stops) stop();
    this.stops.length = 0;
  }

  close(): void {
    this.newestWriter.flush();
    this.closed = true;
    this.stopListening();
    this.listeners.clear();
  }
}
