import { describe, expect, it } from 'vitest';
import { decodeLinkFrame, LINK_FRAME, type LinkFrame } from '../../../../lib/relay/relayWire';
import { silentLogger } from '../../../../server/runtime/log';
import { LinkStreams, MAX_STREAMS } from '../../../../server/relayLink/linkStreams';
import type { LinkStream } from '../../../../server/relayLink/linkStream';
import type { LinkSender } from '../../../../server/relayLink/linkWriter';

class RecordingLink implements LinkSender {
  readonly control: LinkFrame[] = [];
  hasRoom = () => true;
  sendControl(frame: Exclude<LinkFrame, { type: typeof LINK_FRAME.data }>): void {
    this.control.push(frame);
  }
  sendData(): void {}
  waitForRoom(): void {}
  forget(): void {}
  closes(code: number): string[] {
    return this.control.flatMap((f) => (f.type === LINK_FRAME.close && f.code === code ? [f.connectionId] : []));
  }
}

describe('RLY-6 passthrough streams on a link', () => {
  it('RLY-6 at most MAX_STREAMS are open at once; stray DATA and the retired OPEN are dropped', () => {
    const link = new RecordingLink();
    let dropped = 0;
    const accepted: LinkStream[] = [];
    const streams = new LinkStreams(link, {
      acceptStream: (stream) => accepted.push(stream),
      countDropped: () => dropped++,
      log: silentLogger,
    });
    for (let i = 1; i <= MAX_STREAMS + 1; i++) streams.handle({ type: LINK_FRAME.stream, connectionId: `n.${i}` });
    expect(accepted).toHaveLength(MAX_STREAMS);
    expect(link.closes(1013)).toEqual([`n.${MAX_STREAMS + 1}`]);
    // A stream the relay closed makes room for the next.
    streams.handle({ type: LINK_FRAME.close, connectionId: 'n.1', code: 1000, reason: 'client left' });
    streams.handle({ type: LINK_FRAME.stream, connectionId: 'n.999' });
    expect(accepted.at(-1)?.connectionId).toBe('n.999');
    streams.handle({ type: LINK_FRAME.data, connectionId: 'n.998', payload: Uint8Array.of(1) });
    expect(dropped).toBe(1);
    // Type 1 (OPEN of the retired relay channel) is no link frame any more: the link's decoder refuses it.
    expect(() => decodeLinkFrame(Uint8Array.of(1, 3, 0x6e, 0x2e, 0x31))).toThrow(/Unknown link frame type 1/);
    streams.dropAll();
    expect(streams.openStreams).toHaveLength(0);
    for (const stream of accepted) stream.destroy();
  });
});
