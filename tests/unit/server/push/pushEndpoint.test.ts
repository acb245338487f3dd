import { describe, expect, it } from 'vitest';
import { checkPushEndpoint } from '../../../../server/push/pushEndpoint';
import { RuntimeError } from '../../../../server/runtime/errors';

function refusal(endpoint: string, allowPrivate = false): { code: string; reason: unknown } | null {
  try {
    checkPushEndpoint(endpoint, allowPrivate);
    return null;
  } catch (error) {
    if (!(error instanceof RuntimeError)) throw error;
    return { code: error.code, reason: error.data.reason };
  }
}

describe('PUSH-1 SEC-5 push endpoints are public https addresses', () => {
  it.each([
    'https://127.0.0.1:8443/push/1',
    'https://[::1]/push',
    'https://[::ffff:127.0.0.1]/push',
    'https://10.0.0.7/push',
    'https://192.168.1.20/push',
    'https://169.254.169.254/latest',
    'https://localhost/push',
    'https://push.localhost:9000/x',
    'http://fcm.googleapis.com/fcm/send/abc',
  ])('%s is refused with blocked_address', (endpoint) => {
    expect(refusal(endpoint)).toEqual({ code: 'invalid_params', reason: 'blocked_address' });
  });

  it.each([
    'https://fcm.googleapis.com/fcm/send/abc',
    'https://updates.push.services.mozilla.com/wpush/v2/x',
    'https://web.push.apple.com/QG1',
  ])('%s is accepted', (endpoint) => {
    expect(refusal(endpoint)).toBeNull();
  });

  it('--allow-private-fetch lets a loopback push service be named, never plain http', () => {
    expect(refusal('https://127.0.0.1:8443/push/1', true)).toBeNull();
    expect(refusal('http://127.0.0.1:8443/push/1', true)).toEqual({
      code: 'invalid_params',
      reason: 'blocked_address',
    });
  });
});
