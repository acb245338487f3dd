import { ATTACHMENT_CHUNK_BYTES, type UploadStatus } from '../../../lib/protocol/attachments';
import type { UploadChunk } from './attachments';

/** Chunks of one upload that may wait for an earlier one: the client's window, and a little more. */
const CHUNK_ORDER_WINDOW = 16;
/** How long a chunk waits for the ones before it; then it is passed on and refused as out of order. */
const CHUNK_ORDER_WAIT_MS = 10_000;

type TakeChunk = (params: UploadChunk, bytes: Uint8Array) => Promise<UploadStatus>;

interface Held {
  params: UploadChunk;
  bytes: Uint8Array;
  timer: ReturnType<typeof setTimeout>;
  settle: (answer: Promise<UploadStatus>) => void;
}

interface UploadOrder {
  /** Where the next chunk to pass on starts: confirmed bytes plus those passed on and not yet answered. */
  expected: number;
  /** Chunks passed on whose answer is still to come. */
  pending: number;
  held: Map<number, Held>;
}

/**
 * Puts the chunks of an upload back in order before they reach the upload (ATT-1). Chunks sent
 * as separate HTTP requests travel on several connections and may arrive out of order; one
 * that is ahead of the next expected offset, by less than the window, waits for the ones before
 * it instead of being refused. The upload still takes them strictly in order and confirms
 * offsets in order, so resuming from the last confirmed offset stays exact.
 */
export class ChunkOrder {
  private readonly uploads = new Map<string, UploadOrder>();

  constructor(
    private readonly take: TakeChunk,
    private readonly confirmedOffset: (params: UploadChunk) => number,
    private readonly waitMs = CHUNK_ORDER_WAIT_MS,
  ) {}

  /** Answers like `take`, once the chunk's turn came (or its wait ran out). */
  chunk(params: UploadChunk, bytes: Uint8Array): Promise<UploadStatus> {
    let order = this.uploads.get(params.uploadId);
    if (!order) {
      order = { expected: this.confirmedOffset(params), pending: 0, held: new Map() };
      this.uploads.set(params.uploadId, order);
    }
    const ahead = params.offset - order.expected;
    if (ahead <= 0 || ahead >= CHUNK_ORDER_WINDOW * ATTACHMENT_CHUNK_BYTES || order.held.has(params.offset))
      return this.pass(order, params, bytes);
    return new Promise((resolve) => {
      const held: Held = {
        params,
        bytes,
        settle: resolve,
        timer: setTimeout(() => {
          order.held.delete(params.offset);
          resolve(this.pass(order, params, bytes));
        }, this.waitMs),
      };
      order.held.set(params.offset, held);
    });
  }

  private pass(order: UploadOrder, params: UploadChunk, bytes: Uint8Array): Promise<UploadStatus> {
    if (params.offset === order.expected) order.expected += bytes.length;
    order.pending++;
    const answer = this.take(params, bytes);
    void answer.then(
      () => this.settled(order, params.uploadId),
      () => this.settled(order, params.uploadId),
    );
    this.releaseNext(order);
    return answer;
  }

  private releaseNext(order: UploadOrder): void {
    const next = order.held.get(order.expected);
    if (!next) return;
    order.held.delete(order.expected);
    clearTimeout(next.timer);
    next.settle(this.pass(order, next.params, next.bytes));
  }

  /** Nothing in flight and nothing waiting: the next chunk starts again from what the upload confirmed. */
  private settled(order: UploadOrder, uploadId: string): void {
    order.pending--;
    if (order.pending === 0 && order.held.size === 0 && this.uploads.get(uploadId) === order)
      this.uploads.delete(uploadId);
  }
}
