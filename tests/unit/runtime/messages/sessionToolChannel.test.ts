import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../../../server/runtime/log';
import { notFound } from '../../../../server/runtime/errors';
import { SessionToolChannel } from '../../../../server/runtime/messages/sessionToolChannel';
import { SESSION_TOOL_ENV, type SessionToolRequest } from '../../../../server/runtime/messages/sessionToolProtocol';

const channels: SessionToolChannel[] = [];
afterEach(async () => {
  await Promise.all(channels.splice(0).map((c) => c.close()));
});

async function startChannel() {
  const calls: { sessionId: string; request: SessionToolRequest }[] = [];
  const channel = new SessionToolChannel(silentLogger);
  channels.push(channel);
  channel.serve((sessionId, request) => {
    calls.push({ sessionId, request });
    if (request.tool === 'send_message' && request.sessionId === 'missing')
      throw notFound('No session has the id missing.');
    return { ok: true, sessions: [] };
  });
  await channel.start();
  return { channel, calls };
}

async function post(env: Record<string, string>, body: unknown, key = env[SESSION_TOOL_ENV.key]) {
  const response = await fetch(env[SESSION_TOOL_ENV.url]!, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}` },
    body: JSON.stringify(body),
  });
  return { status: response.status, answer: (await response.json()) as unknown };
}

describe('MSG-2 the session tool channel acts only as the session whose key it is given', () => {
  it('MSG-2 a session key calls as that session; a changed, foreign or missing key is refused before any handler runs', async () => {
    const { channel, calls } = await startChannel();
    const env = channel.environmentFor('session-a');
    expect(await post(env, { tool: 'list_sessions' })).toEqual({ status: 200, answer: { ok: true, sessions: [] } });
    expect(calls).toEqual([{ sessionId: 'session-a', request: { tool: 'list_sessions' } }]);
    const key = env[SESSION_TOOL_ENV.key]!;
    const mac = key.slice(key.lastIndexOf('.') + 1);
    // The same mac under another session id, a key of another runtime start, and no key.
    const other = await startChannel();
    for (const forged of [`session-b.${mac}`, other.channel.environmentFor('session-a')[SESSION_TOOL_ENV.key]!, '']) {
      expect(await post(env, { tool: 'list_sessions' }, forged)).toMatchObject({
        status: 401,
        answer: { ok: false, code: 'unauthorized' },
      });
    }
    expect(calls).toHaveLength(1);
  });

  it('MSG-2 a malformed call is refused with what is wrong, and a runtime error comes back as the tool error', async () => {
    const { channel } = await startChannel();
    const env = channel.environmentFor('session-a');
    expect(await post(env, { tool: 'send_message', sessionId: 'x', text: '' })).toMatchObject({
      status: 400,
      answer: { ok: false, code: 'invalid_params', message: expect.stringContaining('callId') },
    });
    expect(await post(env, { tool: 'send_message', callId: 'c1', sessionId: 'missing', text: 'hi' })).toEqual({
      status: 200,
      answer: { ok: false, code: 'not_found', message: 'No session has the id missing.' },
    });
  });
});
