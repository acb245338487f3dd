import { Worker } from 'node:worker_threads';

/** The digest of one write-ahead group, and the group's bytes handed back. */
export interface DigestedGroup {
  sha256: Buffer;
  bytes: Buffer;
}

/**
 * Computes the SHA-256 of one append's bytes. The group may be moved to another thread meanwhile:
 * the caller uses the `bytes` of the answer, never the buffer it passed.
 */
export type Sha256Digest = (group: Buffer) => Promise<DigestedGroup>;

/**
 * The worker's whole program. NOTE: it is evaluated from this string rather than loaded from a
 * file so it starts the same way under every loader that runs the runtime and its tests.
 * The group's memory is transferred there and back, never copied.
 */
const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const { createHash } = require('node:crypto');
parentPort.on('message', ({ id, memory, length }) => {
  const sha256 = createHash('sha256').update(new Uint8Array(memory, 0, length)).digest();
  parentPort.postMessage({ id, sha256, memory }, [memory]);
});
`;

interface DigestAnswer {
  id: number;
  sha256: Uint8Array;
  memory: ArrayBuffer;
}

interface Waiter {
  length: number;
  resolve: (group: DigestedGroup) => void;
  reject: (error: Error) => void;
}

/** A group's memory can be moved to the worker when the group owns all of it. */
const ownsItsMemory = (group: Buffer) =>
  group.byteOffset === 0 && group.buffer instanceof ArrayBuffer && group.buffer.byteLength >= group.length;

/**
 * One worker thread that computes the SHA-256 of write-ahead appends off the event loop
 * (PERF-1): the loop keeps reading agent output and writing earlier appends meanwhile.
 * It keeps the process alive only while digests are outstanding, and a worker that died is
 * replaced on the next digest.
 */
class Sha256Worker {
  private worker: Worker | null = null;
  private nextId = 1;
  private readonly waiting = new Map<number, Waiter>();

  private started(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(WORKER_SOURCE, { eval: true, name: 'sha256' });
    worker.on('message', (answer: DigestAnswer) => {
      const waiter = this.waiting.get(answer.id);
      this.waiting.delete(answer.id);
      if (this.waiting.size === 0) worker.unref();
      waiter?.resolve({
        sha256: Buffer.from(answer.sha256.buffer, answer.sha256.byteOffset, answer.sha256.byteLength),
        bytes: Buffer.from(answer.memory, 0, waiter.length),
      });
    });
    const fail = (error: Error) => {
      if (this.worker !== worker) return;
      this.worker = null;
      for (const waiter of this.waiting.values()) waiter.reject(error);
      this.waiting.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`the SHA-256 worker exited (${code})`)));
    this.worker = worker;
    return worker;
  }

  readonly digest: Sha256Digest = (group) => {
    const worker = this.started();
    const id = this.nextId++;
    worker.ref();
    // A view into memory it shares with other buffers is copied out first; appends own theirs.
    const memory = ownsItsMemory(group) ? (group.buffer as ArrayBuffer) : new Uint8Array(group).buffer;
    return new Promise<DigestedGroup>((resolve, reject) => {
      this.waiting.set(id, { length: group.length, resolve, reject });
      worker.postMessage({ id, memory, length: group.length }, [memory]);
    });
  };
}

let shared: Sha256Worker | null = null;

/** The runtime's one SHA-256 worker, started on first use. */
export const sha256OffThread: Sha256Digest = (group) => (shared ??= new Sha256Worker()).digest(group);
