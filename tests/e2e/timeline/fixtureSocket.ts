/**
 * The runtime's side of the timeline methods, answered in the page from a fixture (TL-1, TL-4):
 * `sessions.timeline` paged by cursor, `sessions.itemText` in slices, command output pages as
 * binary frames, `run.cancel`, and live `timeline.row` pushes a test asks for. The app's own
 * RpcClient talks to it, so every answer still crosses the protocol's schemas.
 */
import type { WebSocketLike } from '../../../lib/client/rpcClient';
import type { TimelineRow } from '../../../lib/protocol/rows';
import { textKey, type TimelineFixture } from './timelineFixture';

type Listener = (event: { data?: unknown; code?: number; reason?: string }) => void;
interface Request {
  id: number;
  method: string;
  params: Record<string, unknown>;
}

export interface FixtureControls {
  /** Methods called so far, in order, with their params. */
  calls: { method: string; params: Record<string, unknown> }[];
  /** Sends a live row (a plan updated in place, a streaming text) as the runtime would. */
  pushRow(row: TimelineRow): void;
  /** Answers to `sessions.timeline` wait until released (to watch "Loading older rows…"). */
  holdPages(hold: boolean): void;
}

function base64(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

export class FixtureSocket implements WebSocketLike {
  readonly readyState = 1;
  private readonly listeners = new Map<string, Listener[]>();
  private readonly encoded = new Map<string, Uint8Array>();
  private revision = 1;
  private held: (() => void)[] | null = null;
  readonly controls: FixtureControls;

  constructor(private readonly fixture: TimelineFixture) {
    this.controls = {
      calls: [],
      pushRow: (row) => this.notify('timeline.row', { sessionId: fixture.session.id, row, revision: ++this.revision }),
      holdPages: (hold) => {
        if (hold) this.held ??= [];
        else {
          const waiting = this.held ?? [];
          this.held = null;
          for (const release of waiting) release();
        }
      },
    };
  }

  addEventListener(type: string, listener: Listener): void {
    this.listeners.set(type, [...(this.listeners.get(type) ?? []), listener]);
  }

  close(): void {}

  send(data: string): void {
    const request = JSON.parse(data) as Request;
    this.controls.calls.push({ method: request.method, params: request.params });
    const answer = () => {
      try {
        this.answer(request);
      } catch (error) {
        this.emit({
          jsonrpc: '2.0',
          id: request.id,
          error: {
            code: -32000,
            message: error instanceof Error ? error.message : String(error),
            data: { code: 'not_found' },
          },
        });
      }
    };
    if (request.method === 'sessions.timeline' && this.held) this.held.push(answer);
    else setTimeout(answer, 0);
  }

  private answer({ id, method, params }: Request): void {
    switch (method) {
      case 'sessions.timeline':
        return this.emit({ jsonrpc: '2.0', id, result: this.page(params) });
      case 'sessions.itemText':
        return this.emit({ jsonrpc: '2.0', id, result: this.itemText(params) });
      case 'run.chatCommandOutputRead':
        return this.outputPage(id, params);
      case 'run.cancel':
        this.emit({ jsonrpc: '2.0', id, result: {} });
        return this.cancel(String(params.runId));
      case 'approvals.list':
        return this.emit({ jsonrpc: '2.0', id, result: { approvals: [] } });
      default:
        throw new Error(`The fixture runtime does not answer ${method}`);
    }
  }

  private rowsOf(parentItemId: unknown): TimelineRow[] {
    return typeof parentItemId === 'string' ? (this.fixture.subagentRows[parentItemId] ?? []) : this.fixture.rows;
  }

  /** Pages end at the `before` cursor (an index into the rows), newest page last. */
  private page(params: Record<string, unknown>) {
    const rows = this.rowsOf(params.parentItemId);
    const limit = typeof params.limit === 'number' ? params.limit : 100;
    const end = typeof params.before === 'string' ? Number(params.before) : rows.length;
    const start = Math.max(0, end - limit);
    return {
      rows: rows.slice(start, end),
      older: start > 0 ? String(start) : null,
      newer: null,
      revision: this.revision,
    };
  }

  private bytesOf(key: string, text: string | undefined): Uint8Array {
    if (text === undefined) throw new Error(`No text ${key}`);
    let bytes = this.encoded.get(key);
    if (!bytes) this.encoded.set(key, (bytes = new TextEncoder().encode(text)));
    return bytes;
  }

  private itemText(params: Record<string, unknown>) {
    const key = textKey(String(params.itemId), String(params.field));
    const bytes = this.bytesOf(key, this.fixture.texts[key]);
    const offset = Number(params.offset);
    const slice = bytes.subarray(offset, offset + Number(params.length));
    return { offset, dataBase64: base64(slice), byteCount: slice.length, availableBytes: bytes.length };
  }

  private outputPage(id: number, params: Record<string, unknown>): void {
    const bytes = this.bytesOf(`output ${String(params.commandId)}`, this.fixture.outputs[String(params.commandId)]);
    const offset = Number(params.offset);
    const slice = bytes.subarray(offset, offset + Number(params.length));
    const result = {
      offset,
      dataBase64: '',
      byteCount: slice.length,
      availableBytes: bytes.length,
      generation: Number(params.generation),
      complete: true,
      sourceIncomplete: false,
    };
    const header = new TextEncoder().encode(JSON.stringify({ jsonrpc: '2.0', id, result }));
    const frame = new Uint8Array(4 + header.length + slice.length);
    new DataView(frame.buffer).setUint32(0, header.length);
    frame.set(header, 4);
    frame.set(slice, 4 + header.length);
    for (const listener of this.listeners.get('message') ?? []) listener({ data: frame.buffer });
  }

  /** A cancelled run's message says so, as the runtime's would (ACC-3). */
  private cancel(runId: string): void {
    const row = this.fixture.rows.find((r) => r.kind === 'message' && r.runId === runId);
    if (row?.kind !== 'message') return;
    const { stalledSince: _stalled, ...rest } = row;
    this.controls.pushRow({ ...rest, state: 'cancelled' });
  }

  private notify(method: string, params: unknown): void {
    setTimeout(() => this.emit({ jsonrpc: '2.0', method, params }), 0);
  }

  private emit(message: unknown): void {
    for (const listener of this.listeners.get('message') ?? []) listener({ data: JSON.stringify(message) });
  }
}
