import crypto from 'node:crypto';
import type { DeviceChange, DeviceRequest } from '../../lib/protocol/devices';
import { RuntimeError, notFound } from '../runtime/errors';
import type { DeviceAuth } from './deviceAuth';

/** How long a request about another device waits for that device (DEV-2). */
export const DEVICE_REQUEST_TTL_MS = 10 * 60 * 1000;

export interface DevicePowersOptions {
  auth: DeviceAuth;
  /** Tells every device (the `devices.changed` notification). */
  announce(change: DeviceChange): void;
  /** Revokes a device: its sockets close, its push subscriptions go. */
  revoke(deviceId: string): void;
  now?: () => number;
  requestTtlMs?: number;
}

/**
 * DEV-2: what one device may do to another. A device renames and revokes itself at once; about
 * another device it can only ask, and that device confirms or declines. The runtime's own token
 * (scripts on the desktop: the way to remove a lost device) acts at once. Every change, request
 * and refusal is announced to every device. Requests live in memory: a restart drops them.
 */
export class DevicePowers {
  private readonly requests = new Map<string, DeviceRequest>();
  private readonly now: () => number;
  private readonly ttlMs: number;

  constructor(private readonly options: DevicePowersOptions) {
    this.now = options.now ?? Date.now;
    this.ttlMs = options.requestTtlMs ?? DEVICE_REQUEST_TTL_MS;
  }

  pending(): DeviceRequest[] {
    this.expire();
    return [...this.requests.values()];
  }

  rename(byDeviceId: string | null, deviceId: string, name: string): DeviceRequest | undefined {
    this.requireDevice(deviceId);
    if (!this.actsAtOnce(byDeviceId, deviceId)) return this.ask(byDeviceId, deviceId, 'rename', name);
    this.applyRename(byDeviceId, deviceId, name);
    return undefined;
  }

  revoke(byDeviceId: string | null, deviceId: string): DeviceRequest | undefined {
    this.requireDevice(deviceId);
    if (!this.actsAtOnce(byDeviceId, deviceId)) return this.ask(byDeviceId, deviceId, 'revoke', null);
    this.applyRevoke(byDeviceId, deviceId);
    return undefined;
  }

  /** The device a request is about answers it; nobody else can. */
  confirm(answeringDeviceId: string | null, requestId: string, accept: boolean): void {
    this.expire();
    const request = this.requests.get(requestId);
    if (!request)
      throw notFound('No such request: it was answered, it expired, or the desktop restarted.', { requestId });
    if (answeringDeviceId !== request.deviceId) {
      throw new RuntimeError('conflict', 'Only the device this request is about can confirm or decline it.', {
        reason: 'not_your_request',
        deviceId: request.deviceId,
      });
    }
    this.requests.delete(requestId);
    if (!accept) {
      this.options.announce({ change: 'declined', request });
      return;
    }
    if (request.action === 'rename') this.applyRename(request.byDeviceId, request.deviceId, request.name!);
    else this.applyRevoke(request.byDeviceId, request.deviceId);
  }

  /** DEV-2: settings that let an agent act without asking were confirmed on `byDeviceId`: everyone is told. */
  announceLiftedGuardRails(byDeviceId: string | null, sessionId: string, settings: string[]): void {
    this.options.announce({ change: 'guardRailsLifted', byDeviceId, sessionId, settings });
  }

  private actsAtOnce(byDeviceId: string | null, deviceId: string): boolean {
    return byDeviceId === null || byDeviceId === deviceId;
  }

  private requireDevice(deviceId: string): void {
    if (!this.options.auth.devices(null).some((d) => d.id === deviceId))
      throw notFound('No such device.', { deviceId });
  }

  private ask(
    byDeviceId: string | null,
    deviceId: string,
    action: DeviceRequest['action'],
    name: string | null,
  ): DeviceRequest {
    this.expire();
    // One open request per device and action: asking again replaces the earlier one.
    for (const [id, earlier] of this.requests)
      if (earlier.deviceId === deviceId && earlier.action === action) this.requests.delete(id);
    const createdAt = this.now();
    const request: DeviceRequest = {
      requestId: crypto.randomUUID(),
      action,
      deviceId,
      byDeviceId,
      name,
      createdAt,
      expiresAt: createdAt + this.ttlMs,
    };
    this.requests.set(request.requestId, request);
    this.options.announce({ change: 'requested', request });
    return request;
  }

  private applyRename(byDeviceId: string | null, deviceId: string, name: string): void {
    if (!this.options.auth.rename(deviceId, name)) throw notFound('No such device.', { deviceId });
    this.options.announce({ change: 'renamed', deviceId, byDeviceId, name });
  }

  private applyRevoke(byDeviceId: string | null, deviceId: string): void {
    for (const [id, request] of this.requests)
      if (request.deviceId === deviceId || request.byDeviceId === deviceId) this.requests.delete(id);
    // Announced first: the revoked device's sockets close with the revoke.
    this.options.announce({ change: 'revoked', deviceId, byDeviceId });
    this.options.revoke(deviceId);
  }

  private expire(): void {
    const now = this.now();
    for (const [id, request] of this.requests) if (request.expiresAt <= now) this.requests.delete(id);
  }
}
