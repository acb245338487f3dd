import type { MethodParamsParsed, MethodResult } from '../../lib/protocol/methods';
import type { Identity } from '../auth/deviceAuth';
import type { DeviceRequest } from '../../lib/protocol/devices';
import { invalidParams } from '../runtime/errors';
import type { Runtime } from '../runtime/runtime';

/** Subscriptions belong to a paired device; the scripts' token (HBCODE_TOKEN) is none. */
function deviceOf(identity: Identity | null): string {
  if (!identity?.deviceId)
    throw invalidParams('Only a paired device can receive notifications; this token belongs to no device.');
  return identity.deviceId;
}

interface Caller {
  identity: Identity | null;
  appOrigin: string;
}

const pendingResult = (pending: DeviceRequest | undefined) => (pending ? { pending } : {});

/** `devices.rename`, `.revoke` and `.confirm` (DEV-1, DEV-2) and the Web Push methods (PUSH-1). */
export function createDeviceHandlers(runtime: Runtime) {
  return {
    'devices.rename'(params: MethodParamsParsed<'devices.rename'>, ctx: Caller): MethodResult<'devices.rename'> {
      return pendingResult(runtime.devicePowers.rename(ctx.identity?.deviceId ?? null, params.deviceId, params.name));
    },
    'devices.revoke'(params: MethodParamsParsed<'devices.revoke'>, ctx: Caller): MethodResult<'devices.revoke'> {
      return pendingResult(runtime.devicePowers.revoke(ctx.identity?.deviceId ?? null, params.deviceId));
    },
    'devices.confirm'(params: MethodParamsParsed<'devices.confirm'>, ctx: Caller): MethodResult<'devices.confirm'> {
      runtime.devicePowers.confirm(ctx.identity?.deviceId ?? null, params.requestId, params.accept);
      return {};
    },
    'push.status'(_params: unknown, ctx: Caller): MethodResult<'push.status'> {
      const deviceId = ctx.identity?.deviceId;
      return {
        vapidPublicKey: runtime.push.publicKey,
        subscriptions: deviceId ? runtime.push.subscriptionsOf(deviceId) : [],
      };
    },
    'push.subscribe'(params: MethodParamsParsed<'push.subscribe'>, ctx: Caller): MethodResult<'push.subscribe'> {
      runtime.push.subscribe(deviceOf(ctx.identity), params.subscription, params.events, ctx.appOrigin);
      return {};
    },
    'push.unsubscribe'(params: MethodParamsParsed<'push.unsubscribe'>, ctx: Caller): MethodResult<'push.unsubscribe'> {
      runtime.push.unsubscribe(deviceOf(ctx.identity), params.endpoint);
      return {};
    },
  };
}
