import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RpcClient } from '../../../lib/client/rpcClient';
import { PROTOCOL_VERSION } from '../../../lib/protocol/version';
import { RawRpcSocket, resultOf, type ResponseFrame } from '../../fixtures/rawSocket';
import { startRuntimeProcess, type RuntimeProcess } from '../../fixtures/runtimeProcess';

const GUESS_LIMIT = 20;
const WINDOW_MS = 5_000;
const SOCKETS = 100;
const SOCKETS_PER_WAVE = 25;
const GUESSES_PER_SOCKET = 3;

/** A well-formed code nobody was given (the alphabet has no U). */
const wrongCode = (n: number) => `UUUUU-${String(n).padStart(5, '0')}`;

type Outcome =
  | { kind: 'paired'; token: string }
  | { kind: 'unauthorized' }
  | { kind: 'rate_limited'; retryAfterMs: number; message: string };

function outcomeOf(frame: ResponseFrame): Outcome {
  if ('result' in frame) return { kind: 'paired', token: (frame.result as { token: string }).token };
  const { data, message } = frame.error;
  if (data?.code === 'unauthorized') return { kind: 'unauthorized' };
  if (data?.code === 'rate_limited') return { kind: 'rate_limited', retryAfterMs: Number(data.retryAfterMs), message };
  throw new Error(`unexpected answer to pair.redeem: ${JSON.stringify(frame)}`);
}

describe('SEC-9 a global limit on pairing guesses', () => {
  let runtime: RuntimeProcess;
  let admin: RpcClient;

  beforeAll(async () => {
    runtime = await startRuntimeProcess({
      env: { HBCODE_PAIRING_GUESS_LIMIT: String(GUESS_LIMIT), HBCODE_PAIRING_GUESS_WINDOW_MS: String(WINDOW_MS) },
    });
    admin = await runtime.connect();
  });
  afterAll(async () => {
    admin?.close();
    await runtime?.stop();
  });

  /** One guess on a socket of its own, as an attacker that never reuses a socket would send it. */
  async function guessOnFreshSocket(code: string): Promise<Outcome> {
    const socket = await RawRpcSocket.open(runtime);
    try {
      return outcomeOf(await socket.request('pair.redeem', { code, deviceName: 'guesser' }));
    } finally {
      socket.close();
    }
  }

  it('SEC-9 guesses across 100 fresh sockets: only a bounded number are evaluated, the rest are rate_limited with a retry time, and the real code survives', async () => {
    const { code: realCode } = await admin.call('pair.create');

    const startedAt = Date.now();
    // In waves below the cap on sockets waiting to authenticate (SEC-9), which would otherwise
    // refuse some of these sockets before they could guess at all.
    const outcomes: Outcome[] = [];
    for (let first = 0; first < SOCKETS; first += SOCKETS_PER_WAVE) {
      const wave = await Promise.all(
        Array.from({ length: Math.min(SOCKETS_PER_WAVE, SOCKETS - first) }, async (_, i) => {
          const s = first + i;
          const socket = await RawRpcSocket.open(runtime);
          const answers: Outcome[] = [];
          for (let g = 0; g < GUESSES_PER_SOCKET; g++)
            answers.push(
              outcomeOf(
                await socket.request('pair.redeem', {
                  code: wrongCode(s * GUESSES_PER_SOCKET + g),
                  deviceName: 'guesser',
                }),
              ),
            );
          socket.close();
          return answers;
        }),
      );
      outcomes.push(...wave.flat());
    }
    const elapsedMs = Date.now() - startedAt;

    const evaluated = outcomes.filter((o) => o.kind === 'unauthorized').length;
    const limited = outcomes.filter((o) => o.kind === 'rate_limited');
    expect(outcomes.filter((o) => o.kind === 'paired')).toHaveLength(0);
    expect(evaluated + limited.length).toBe(SOCKETS * GUESSES_PER_SOCKET);
    // Each window lets GUESS_LIMIT wrong guesses through, however many sockets send them.
    expect(evaluated).toBeGreaterThan(0);
    expect(evaluated).toBeLessThanOrEqual(GUESS_LIMIT * (1 + Math.floor(elapsedMs / WINDOW_MS)));
    expect(limited.length).toBeGreaterThan(0);
    for (const answer of limited) {
      expect(answer.retryAfterMs).toBeGreaterThan(0);
      expect(answer.retryAfterMs).toBeLessThanOrEqual(WINDOW_MS);
      expect(answer.message).toMatch(/Too many pairing attempts.*Try again in \d+ (seconds?|minutes)\./);
    }

    // Fill the window with fresh wrong guesses (waiting out old ones, whose slots are about to
    // free), then offer the real code: it is refused unread, so not used up.
    for (let n = 0; ; n++) {
      expect(n).toBeLessThanOrEqual(10 * GUESS_LIMIT);
      const last = await guessOnFreshSocket(wrongCode(10_000 + n));
      if (last.kind !== 'rate_limited') continue;
      if (last.retryAfterMs >= WINDOW_MS / 2) break;
      await new Promise((resolve) => setTimeout(resolve, last.retryAfterMs));
    }
    const whileLimited = await guessOnFreshSocket(realCode);
    expect(whileLimited.kind).toBe('rate_limited');

    // Retried as a client would, after the time each answer names, the real code pairs a device.
    let paired: Outcome = whileLimited;
    const deadline = Date.now() + 4 * WINDOW_MS;
    while (paired.kind === 'rate_limited' && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, (paired as { retryAfterMs: number }).retryAfterMs));
      paired = await guessOnFreshSocket(realCode);
    }
    expect(paired.kind).toBe('paired');
    const socket = await RawRpcSocket.open(runtime);
    try {
      const hello = resultOf(
        await socket.request('auth.hello', {
          token: paired.kind === 'paired' ? paired.token : '',
          protocolVersion: PROTOCOL_VERSION,
        }),
      );
      expect(hello).toMatchObject({ protocolVersion: PROTOCOL_VERSION });
    } finally {
      socket.close();
    }
    // And it worked once: the same code again is a wrong guess.
    expect((await guessOnFreshSocket(realCode)).kind).toBe('unauthorized');
  });
});
