import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RpcClient } from '../../../lib/client/rpcClient';
import { messageState, waitForRows } from '../../fixtures/agentSessions';
import { pairDevice, type PairedDevice } from '../../fixtures/pairedDevice';
import { waitUntil } from '../../fixtures/waitUntil';
import {
  createScriptedSession,
  sendScript,
  startScriptedRuntime,
  type ScriptedRuntime,
} from '../../fixtures/scriptedAgentSessions';

/** UX-8 over a real WebSocket: "done, unread" per device, kept by the runtime. */
describe('UX-8 sessions.seen and the unread mark, per device', () => {
  let scripted: ScriptedRuntime;
  let admin: RpcClient;
  let phone: PairedDevice;
  let laptop: PairedDevice;

  beforeAll(async () => {
    scripted = await startScriptedRuntime();
    admin = await scripted.runtime.connect();
    phone = await pairDevice(scripted.runtime, admin, 'Phone');
    laptop = await pairDevice(scripted.runtime, admin, 'Laptop');
  });
  afterAll(async () => {
    phone?.client.close();
    laptop?.client.close();
    admin?.close();
    await scripted?.runtime.stop();
    scripted?.remove();
  });

  const unread = async (device: PairedDevice, sessionId: string) =>
    (await device.client.call('sessions.list')).sessions.find((s) => s.id === sessionId)!.unread ?? false;
  async function finishTurn(sessionId: string): Promise<void> {
    const { runId } = await sendScript(admin, sessionId, { items: [] });
    await waitForRows(admin, sessionId, (rows) => messageState(rows, runId) === 'done');
  }

  it('UX-8 a finished turn is unread on every device until each opens it; a turn that ends while a device shows the session is seen there; a socket that goes stops showing it', async () => {
    const sessionId = await createScriptedSession(admin);
    await finishTurn(sessionId);
    expect([await unread(phone, sessionId), await unread(laptop, sessionId)]).toEqual([true, true]);

    await phone.client.call('sessions.seen', { sessionId, open: false });
    expect([await unread(phone, sessionId), await unread(laptop, sessionId)]).toEqual([false, true]);

    // Shown on the phone while the next turn ends: seen there, not on the laptop.
    await phone.client.call('sessions.seen', { sessionId, open: true });
    await finishTurn(sessionId);
    expect([await unread(phone, sessionId), await unread(laptop, sessionId)]).toEqual([false, true]);

    // Left (open: false): the next turn is unread there again.
    await phone.client.call('sessions.seen', { sessionId, open: false });
    await finishTurn(sessionId);
    expect(await unread(phone, sessionId)).toBe(true);

    // Shown again, then the phone's socket goes: the session is not on its screen any more. The
    // runtime notices the close in its own time, so turns are run until one is unread there.
    await phone.client.call('sessions.seen', { sessionId, open: true });
    expect(await unread(phone, sessionId)).toBe(false);
    phone.client.close();
    phone = { ...phone, client: await scripted.runtime.connect(phone.token) };
    await waitUntil(async () => {
      await finishTurn(sessionId);
      return unread(phone, sessionId);
    }, 'a turn that ends after the socket went is unread on the phone');

    await expect(
      phone.client.call('sessions.seen', { sessionId: 'no-such-session', open: false }),
    ).rejects.toMatchObject({ code: 'not_found' });
  });
});
