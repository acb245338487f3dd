import { describe, expect, it } from 'vitest';
import { ADD_TO_HOME_SCREEN_FIRST, pushBlocker, type PushEnvironment } from '../../../../lib/client/devices/pushOptIn';

const IPHONE_18 =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 18_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.4 Mobile/15E148 Safari/604.1';
const IPHONE_16_3 =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 16_3 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/16.3 Mobile/15E148 Safari/604.1';
const IPAD_AS_MAC =
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.4 Safari/605.1.15';
const ANDROID =
  'Mozilla/5.0 (Linux; Android 15; Pixel 9) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0.0.0 Mobile Safari/537.36';

const env = (changes: Partial<PushEnvironment>): PushEnvironment => ({
  secureContext: true,
  userAgent: ANDROID,
  maxTouchPoints: 5,
  standalone: false,
  webPushApis: true,
  permission: 'default',
  ...changes,
});

describe('PWA-7 whether push can be turned on here', () => {
  it('PWA-7 an iPhone in a Safari tab is told to add the app to the Home Screen first, even with the push APIs there', () => {
    expect(pushBlocker(env({ userAgent: IPHONE_18, standalone: false }))).toBe(ADD_TO_HOME_SCREEN_FIRST);
    expect(pushBlocker(env({ userAgent: IPHONE_18, standalone: false, webPushApis: false }))).toBe(
      ADD_TO_HOME_SCREEN_FIRST,
    );
  });

  it('PWA-7 the Home Screen app on iOS 16.4 or later may turn push on', () => {
    expect(pushBlocker(env({ userAgent: IPHONE_18, standalone: true }))).toBeNull();
  });

  it('PWA-7 iOS before 16.4 has no Web Push, even on the Home Screen', () => {
    expect(pushBlocker(env({ userAgent: IPHONE_16_3, standalone: true }))).toMatch(/iOS 16\.4 or later/);
  });

  it('PWA-7 an iPad that calls itself a Mac is told apart by its touch points', () => {
    expect(pushBlocker(env({ userAgent: IPAD_AS_MAC, maxTouchPoints: 5, standalone: false }))).toBe(
      ADD_TO_HOME_SCREEN_FIRST,
    );
    expect(pushBlocker(env({ userAgent: IPAD_AS_MAC, maxTouchPoints: 5, standalone: true }))).toBeNull();
    // A real Mac's Safari needs no Home Screen.
    expect(pushBlocker(env({ userAgent: IPAD_AS_MAC, maxTouchPoints: 0, standalone: false }))).toBeNull();
  });

  it('PWA-7 elsewhere a browser tab may turn push on; without HTTPS, the APIs or the permission it may not', () => {
    expect(pushBlocker(env({}))).toBeNull();
    expect(pushBlocker(env({ secureContext: false }))).toMatch(/HTTPS/);
    expect(pushBlocker(env({ webPushApis: false }))).toMatch(/does not support/);
    expect(pushBlocker(env({ permission: 'denied' }))).toMatch(/blocked/);
  });
});
