import crypto from 'node:crypto';
import type { Msg, NatsConnection } from '@nats-io/transport-node';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CONNECTION_ID_PATTERN, DESKTOP_ID_PATTERN, MAX_CHANNEL_FRAME_BYTES } from '../../../lib/relay/relayWire';
import {
  FrameJoiner,
  NATS_PART_BYTES,
  NODE_ID_PATTERN,
  publishChannelFrame,
  readRoute,
  type ReceivedRoute,
} from '../../../relay/natsWire';
import { NodeBudget } from '../../../relay/nodeBudget';
import { propertyRuns } from '../../fixtures/propertyRuns';

interface Published {
  subject: string;
  data: Uint8Array;
  route: ReceivedRoute | null;
}

/** A NATS connection that keeps what is published, each message as the receiving node reads it. */
function recordingConnection(): { nc: NatsConnection; published: Published[] } {
  const published: Published[] = [];
  const nc = {
    publish(subject: string, data: Uint8Array, options: { headers: Msg['headers'] }) {
      published.push({ subject, data, route: readRoute({ headers: options.headers } as Msg) });
    },
  } as unknown as NatsConnection;
  return { nc, published };
}

/** A frame of `length` bytes that differ from place to place, so a part out of order or lost shows. */
function frameOf(length: number, salt: number): Uint8Array {
  const frame = new Uint8Array(length);
  for (let i = 0; i < length; i += 509) frame[i] = (i / 509 + salt) & 0xff;
  if (length > 0) frame[length - 1] = salt & 0xff;
  return frame;
}

/** Frames compared by length and digest: a deep comparison of megabytes element by element would take seconds. */
const digestOf = (bytes: Uint8Array) => `${bytes.length}:${crypto.createHash('sha256').update(bytes).digest('hex')}`;

const meta = { from: 'node-a', desktopId: 'a'.repeat(32) };
const connectionId = fc.stringMatching(CONNECTION_ID_PATTERN);
/** Up to a little over three NATS messages' worth, with the edges (0, one part, one part + 1) likely. */
const frameLength = fc.oneof(
  fc.constantFrom(0, 1, NATS_PART_BYTES - 1, NATS_PART_BYTES, NATS_PART_BYTES + 1, 2 * NATS_PART_BYTES),
  fc.integer({ min: 0, max: 3 * NATS_PART_BYTES + 17 }),
);

describe('RLY-4 channel frames over NATS in parts (relay/natsWire.ts)', () => {
  it('RLY-4 a frame of any size goes in parts under the payload limit and is joined back whole, once, at its last part', () => {
    fc.assert(
      fc.property(connectionId, frameLength, fc.nat(255), (id, length, salt) => {
        const { nc, published } = recordingConnection();
        const frame = frameOf(length, salt);
        publishChannelFrame(nc, 'hbr.desk.x', meta, id, frame);
        expect(published.length).toBe(Math.max(1, Math.ceil(length / NATS_PART_BYTES)));
        const joiner = new FrameJoiner(new NodeBudget(Infinity));
        const joined = published.map(({ data, route }) => {
          expect(data.length).toBeLessThanOrEqual(NATS_PART_BYTES);
          expect(route).toEqual({ kind: 'part', ...meta, connectionId: id, more: route!.more });
          return joiner.add(data, route!.more);
        });
        expect(joined.slice(0, -1).every((result) => result === null)).toBe(true);
        expect(Buffer.from(joined.at(-1) as Uint8Array).equals(Buffer.from(frame))).toBe(true);
        expect(joiner.pendingBytes).toBe(0);
      }),
      propertyRuns(15),
    );
  });

  it('RLY-4 parts of several connections, interleaved as they arrive, join back to each connection’s frames in order', () => {
    const frames = fc.array(fc.record({ connection: fc.nat(2), length: frameLength, salt: fc.nat(255) }), {
      minLength: 1,
      maxLength: 6,
    });
    fc.assert(
      fc.property(frames, fc.infiniteStream(fc.nat(2)), (sent, picks) => {
        const ids = ['n.1', 'n.2', 'other-node.3'];
        // Each connection's parts in its own order; the three queues merged in a random way.
        const queues = ids.map(() => [] as Published[]);
        for (const { connection, length, salt } of sent) {
          const { nc, published } = recordingConnection();
          publishChannelFrame(nc, 'hbr.node.x', meta, ids[connection]!, frameOf(length, salt));
          queues[connection]!.push(...published);
        }
        const joiners = new Map(ids.map((id) => [id, new FrameJoiner(new NodeBudget(Infinity))]));
        const received = new Map(ids.map((id) => [id, [] as Uint8Array[]]));
        const pick = picks[Symbol.iterator]();
        while (queues.some((queue) => queue.length > 0)) {
          const queue = queues[pick.next().value as number]!;
          const message = queue.shift();
          if (!message) continue;
          const whole = joiners.get(message.route!.connectionId!)!.add(message.data, message.route!.more);
          if (whole instanceof Uint8Array) received.get(message.route!.connectionId!)!.push(whole);
        }
        for (const [index, id] of ids.entries()) {
          const expected = sent.filter((f) => f.connection === index).map((f) => digestOf(frameOf(f.length, f.salt)));
          expect(received.get(id)!.map(digestOf)).toEqual(expected);
        }
      }),
      propertyRuns(15),
    );
  });

  it('RLY-4 a frame that grows past the channel limit is dropped whole, reported once, and the next frame still joins', () => {
    const shared = new Uint8Array(NATS_PART_BYTES);
    fc.assert(
      fc.property(
        fc.integer({ min: MAX_CHANNEL_FRAME_BYTES + 1, max: MAX_CHANNEL_FRAME_BYTES + 3 * NATS_PART_BYTES }),
        fc.integer({ min: 64 * 1024, max: NATS_PART_BYTES }),
        (length, partBytes) => {
          const joiner = new FrameJoiner(new NodeBudget(Infinity));
          const results: ReturnType<FrameJoiner['add']>[] = [];
          for (let offset = 0; offset < length; offset += partBytes) {
            const size = Math.min(partBytes, length - offset);
            results.push(joiner.add(shared.subarray(0, size), offset + size < length));
          }
          expect(results.filter((r) => r === 'too_large')).toHaveLength(1);
          expect(results.filter((r) => r !== null && r !== 'too_large')).toEqual([]);
          expect(joiner.pendingBytes).toBe(0);
          const next = frameOf(1000, 7);
          expect(joiner.add(next.subarray(0, 400), true)).toBeNull();
          expect(Buffer.from(joiner.add(next.subarray(400), false) as Uint8Array).equals(Buffer.from(next))).toBe(true);
        },
      ),
      propertyRuns(20),
    );
  });

  it('RLY-4 any headers read as a checked route or as none, never a throw', () => {
    const anyValue = fc.oneof(
      fc.string({ maxLength: 50 }),
      fc.stringMatching(NODE_ID_PATTERN),
      fc.stringMatching(DESKTOP_ID_PATTERN),
      fc.stringMatching(CONNECTION_ID_PATTERN),
      fc.constantFrom('frame', 'part', '1', '0', ''),
    );
    const headerNames = fc.constantFrom('hbr-k', 'hbr-from', 'hbr-desk', 'hbr-conn', 'hbr-more', 'other');
    fc.assert(
      fc.property(fc.option(fc.dictionary(headerNames, anyValue), { nil: undefined }), (values) => {
        const headers = values && { get: (name: string) => values[name] ?? '' };
        const route = readRoute({ headers } as unknown as Msg);
        if (route === null) return;
        expect(['frame', 'part']).toContain(route.kind);
        expect(route.from).toMatch(NODE_ID_PATTERN);
        expect(route.desktopId).toMatch(DESKTOP_ID_PATTERN);
        if (route.kind === 'part') expect(route.connectionId).toMatch(CONNECTION_ID_PATTERN);
        else expect(route.connectionId).toBeNull();
      }),
      propertyRuns(200),
    );
  });
});
