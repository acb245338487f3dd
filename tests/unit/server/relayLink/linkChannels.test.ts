import { afterEach, describe, expect, it, vi } from 'vitest';
import { generateKeyPair } from '../../../../lib/relay/noise';
import { LINK_FRAME, type LinkFrame } from '../../../../lib/relay/relayWire';
import type { DeviceAuth } from '../../../../server/auth/tokens';
import { silentLogger } from '../../../../server/runtime/log';
import { HandshakeReplays } from '../../../../server/relayLink/handshakeReplays';
import { LinkChannels, MAX_STREAMS } from '../../../../server/relayLink/linkChannels';
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

describe('RLY-2 SEC-9 connections waiting for their handshake', () => {
  afterEach(() => vi.useRealTimers());

  it('RLY-2 SEC-9 at most 64 wait at once, each for 15 seconds; stray DATA is dropped and counted', async () => {
    vi.useFakeTimers();
    const link = new RecordingLink();
    let dropped = 0;
    const channels = new LinkChannels(link, {
      desktopId: 'a'.repeat(32),
      noiseKeys: await generateKeyPair(),
      auth: {} as DeviceAuth,
      accept: () => {
        throw new Error('no handshake completes here');
      },
      countDropped: () => dropped++,
      replays: new HandshakeReplays(),
      log: silentLogger,
    });
    for (let i = 1; i <= 65; i++) channels.handle({ type: LINK_FRAME.open, connectionId: `n.${i}` });
    expect(link.closes(1013)).toEqual(['n.65']);
    channels.handle({ type: LINK_FRAME.close, connectionId: 'n.1', code: 1000, reason: 'device left' });
    channels.handle({ type: LINK_FRAME.open, connectionId: 'n.66' });
    expect(link.closes(1013)).toEqual(['n.65']);
    channels.handle({ type: LINK_FRAME.data, connectionId: 'n.999', payload: Uint8Array.of(1) });
    expect(dropped).toBe(1);
    vi.advanceTimersByTime(15_000);
    expect(link.closes(4408)).toHaveLength(64);
    expect(link.closes(4408)).not.toContain('n.1');
    channels.handle({ type: LINK_FRAME.open, connectionId: 'n.67' });
    expect(link.closes(1013)).toEqual(['n.65']);
  });
});

describe('RLY-6 passthrough streams on a link', () => {
  it('RLY-6 without a certificate every stream is refused; with one, at most MAX_STREAMS are open at once', async () => {
    const desk = { desktopId: 'a'.repeat(32), noiseKeys: await generateKeyPair(), auth: {} as DeviceAuth, accept: () => ({ receive: async () => {}, detach: () => {} }), countDropped: () => {}, replays: new HandshakeReplays(), log: silentLogger };
    const refusing = new RecordingLink();
    new LinkChannels(refusing, desk).handle({ type: LINK_FRAME.stream, connectionId: 'n.1' });
    expect(refusing.closes(1013)).toEqual(['n.1']);

    const link = new RecordingLink();
    const accepted: LinkStream[] = [];
    const channels = new LinkChannels(link, { ...desk, acceptStream: (stream) => accepted.push(stream) });
    for (let i = 1; i <= MAX_STREAMS + 1; i++) channels.handle({ type: LINK_FRAME.stream, connectionId: `n.${i}` });
    expect(accepted).toHaveLength(MAX_STREAMS);
    expect(link.closes(1013)).toEqual([`n.${MAX_STREAMS + 1}`]);
    // A stream the relay closed makes room for the next.
    channels.handle({ type: LINK_FRAME.close, connectionId: 'n.1', code: 1000, reason: 'client left' });
    channels.handle({ type: LINK_FRAME.stream, connectionId: 'n.999' });
    expect(accepted.at(-1)?.connectionId).toBe('n.999');
    for (const stream of accepted) stream.destroy();
  });
});
