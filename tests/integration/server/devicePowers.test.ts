import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RpcClient } from '../../../lib/client/rpcClient';
import type { DeviceChange } from '../../../lib/protocol/devices';
import { pairDevice } from '../../fixtures/pairedDevice';
import { expectRpcError } from '../../fixtures/rpcErrors';
import { startRuntimeProcess, type RuntimeProcess } from '../../fixtures/runtimeProcess';
import { waitUntil } from '../../fixtures/waitUntil';

/** Every `devices.changed` a client receives. */
function heard(client: RpcClient): DeviceChange[] {
  const changes: DeviceChange[] = [];
  client.onNotification('devices.changed', (change) => changes.push(change));
  return changes;
}

describe('DEV-2 DEV-3 what one device may do to another', () => {
  let runtime: RuntimeProcess;
  let admin: RpcClient;

  beforeAll(async () => {
    runtime = await startRuntimeProcess();
    admin = await runtime.connect();
  });
  afterAll(async () => {
    admin?.close();
    await runtime?.stop();
  });

  it('DEV-2 a device cannot revoke another without that device confirming; the other device confirms, and every device sees each step', async () => {
    const phone = await pairDevice(runtime, admin, 'Phone');
    const laptop = await pairDevice(runtime, admin, 'Laptop');
    const [phoneHears, laptopHears, adminHears] = [heard(phone.client), heard(laptop.client), heard(admin)];

    const { pending } = await phone.client.call('devices.revoke', { deviceId: laptop.deviceId });
    expect(pending).toMatchObject({ action: 'revoke', deviceId: laptop.deviceId, byDeviceId: phone.deviceId });
    // Nothing happened yet: the laptop is still paired and connected.
    expect((await laptop.client.call('devices.list')).devices.some((d) => d.id === laptop.deviceId)).toBe(true);
    for (const changes of [phoneHears, laptopHears, adminHears]) {
      await waitUntil(
        () => changes.some((c) => c.change === 'requested' && c.request.requestId === pending!.requestId),
        'every device hears the request',
        10_000,
      );
    }
    expect((await admin.call('devices.list')).requests).toEqual([pending]);

    // The asking device cannot confirm its own request about another.
    const refused = await expectRpcError(
      phone.client.call('devices.confirm', { requestId: pending!.requestId, accept: true }),
      'conflict',
    );
    expect(refused.data).toMatchObject({ reason: 'not_your_request' });
    expect((await admin.call('devices.list')).devices.some((d) => d.id === laptop.deviceId)).toBe(true);

    await laptop.client.call('devices.confirm', { requestId: pending!.requestId, accept: true }).catch(() => undefined);
    expect(await laptop.client.closed).toMatchObject({ code: 4401 });
    for (const changes of [phoneHears, adminHears]) {
      await waitUntil(
        () =>
          changes.some(
            (c) => c.change === 'revoked' && c.deviceId === laptop.deviceId && c.byDeviceId === phone.deviceId,
          ),
        'every device hears the revoke',
        10_000,
      );
    }
    const after = await phone.client.call('devices.list');
    expect(after.devices.some((d) => d.id === laptop.deviceId)).toBe(false);
    expect(after.requests).toEqual([]);
    phone.client.close();
  });

  it('DEV-2 a rename of another device waits for it and a decline changes nothing; a device renames itself at once, announced', async () => {
    const phone = await pairDevice(runtime, admin, 'Phone');
    const tablet = await pairDevice(runtime, admin, 'Tablet');
    const phoneHears = heard(phone.client);
    const { pending } = await phone.client.call('devices.rename', { deviceId: tablet.deviceId, name: 'Stolen' });
    expect(pending).toMatchObject({ action: 'rename', name: 'Stolen' });
    await tablet.client.call('devices.confirm', { requestId: pending!.requestId, accept: false });
    await waitUntil(
      () => phoneHears.some((c) => c.change === 'declined'),
      'the asking device hears the decline',
      10_000,
    );
    expect((await admin.call('devices.list')).devices.find((d) => d.id === tablet.deviceId)?.name).toBe('Tablet');
    await expectRpcError(
      tablet.client.call('devices.confirm', { requestId: pending!.requestId, accept: true }),
      'not_found',
    );

    expect(await tablet.client.call('devices.rename', { deviceId: tablet.deviceId, name: 'Kitchen tablet' })).toEqual(
      {},
    );
    await waitUntil(
      () =>
        phoneHears.some((c) => c.change === 'renamed' && c.deviceId === tablet.deviceId && c.name === 'Kitchen tablet'),
      'the rename is announced',
      10_000,
    );
    phone.client.close();
    tablet.client.close();
  });

  it('DEV-3 names with control or text-direction characters, markup or over 64 characters, and path-like or multi-line model names, are refused with the reason', async () => {
    const phone = await pairDevice(runtime, admin, 'Phone');
    const badNames: [string, RegExp][] = [
      ['Phone\u202Egnp.exe', /text-direction/],
      ['Line\nbreak', /control characters/],
      ['Esc\u001b[31m', /control characters/],
      ['<img src=x onerror=alert(1)>', /< or >/],
      ['x'.repeat(65), /at most 64/],
      ['   ', /empty/],
    ];
    for (const [name, reason] of badNames) {
      const refused = await expectRpcError(
        phone.client.call('devices.rename', { deviceId: phone.deviceId, name }),
        'invalid_params',
      );
      expect(refused.message).toMatch(reason);
    }
    const { code } = await admin.call('pair.create');
    const stranger = runtime.openSocket();
    await stranger.opened;
    expect(
      (await expectRpcError(stranger.call('pair.redeem', { code, deviceName: 'Evil\u2066name' }), 'invalid_params'))
        .message,
    ).toMatch(/text-direction/);
    stranger.close();
    expect((await admin.call('devices.list')).devices.find((d) => d.id === phone.deviceId)?.name).toBe('Phone');
    // Names in other scripts are names: kept as typed.
    await phone.client.call('devices.rename', { deviceId: phone.deviceId, name: 'هاتف سارة' });
    expect((await admin.call('devices.list')).devices.find((d) => d.id === phone.deviceId)?.name).toBe('هاتف سارة');

    const { projects } = await admin.call('projects.list');
    for (const model of ['../../etc/passwd', 'x'.repeat(100_000), 'gpt-5\nrm -rf /', '/abs/model']) {
      const refused = await expectRpcError(
        admin.call('sessions.create', {
          projectId: projects[0]!.id,
          agent: 'claude',
          settings: { claude: { permissionMode: 'default', model } },
        }),
        'invalid_params',
      );
      expect(refused.message).toMatch(/model name/);
    }
    const { session } = await admin.call('sessions.create', {
      projectId: projects[0]!.id,
      agent: 'codex',
      settings: {
        codex: {
          profileId: null,
          sandbox: 'workspace-write',
          approvalPolicy: 'on-request',
          model: 'openai/gpt-oss:20b',
          effort: null,
        },
      },
    });
    expect((await admin.call('sessions.settings', { sessionId: session.id })).settings.codex?.model).toBe(
      'openai/gpt-oss:20b',
    );
    phone.client.close();
  });

  it('DEV-2 settings that lift guard rails need a confirmation on the device that sets them, and every device is told', async () => {
    const phone = await pairDevice(runtime, admin, 'Phone');
    const laptop = await pairDevice(runtime, admin, 'Laptop');
    const laptopHears = heard(laptop.client);
    const { projects } = await phone.client.call('projects.list');
    const bypass = { claude: { permissionMode: 'bypassPermissions' as const, model: null } };
    const refused = await expectRpcError(
      phone.client.call('sessions.create', { projectId: projects[0]!.id, agent: 'claude', settings: bypass }),
      'conflict',
    );
    expect(refused.data).toMatchObject({
      reason: 'confirmation_required',
      lifted: ['Claude permission mode bypassPermissions'],
    });
    expect(laptopHears).toEqual([]);

    const { session } = await phone.client.call('sessions.create', {
      projectId: projects[0]!.id,
      agent: 'codex',
      settings: {
        codex: { profileId: null, sandbox: 'workspace-write', approvalPolicy: 'on-request', model: null, effort: null },
      },
    });
    const fullAccess = {
      codex: {
        profileId: null,
        sandbox: 'danger-full-access' as const,
        approvalPolicy: 'never' as const,
        model: null,
        effort: null,
      },
    };
    expect(
      (
        await expectRpcError(
          phone.client.call('sessions.configure', { sessionId: session.id, settings: fullAccess }),
          'conflict',
        )
      ).data,
    ).toMatchObject({
      lifted: ['Codex sandbox danger-full-access', 'Codex approval policy never'],
    });
    expect((await phone.client.call('sessions.settings', { sessionId: session.id })).settings.codex?.sandbox).toBe(
      'workspace-write',
    );
    await phone.client.call('sessions.configure', {
      sessionId: session.id,
      settings: fullAccess,
      confirmLiftedGuardRails: true,
    });
    await waitUntil(
      () =>
        laptopHears.some(
          (c) => c.change === 'guardRailsLifted' && c.sessionId === session.id && c.byDeviceId === phone.deviceId,
        ),
      'the other device is told',
      10_000,
    );
    // Already lifted: changing something else asks nothing again.
    await phone.client.call('sessions.configure', {
      sessionId: session.id,
      settings: { codex: { ...fullAccess.codex, effort: 'high' } },
    });
    phone.client.close();
    laptop.client.close();
  });
});
