import { describe, expect, it } from 'vitest';
import { parseRoute, routeHash, type AppRoute } from '../../../lib/client/appRoute';
import { sessionLink } from '../../../server/push/pushEvents';

describe('DEV-1 / PUSH-1 the devices screen and notification links as app routes', () => {
  it('DEV-1 #/devices is the devices screen, and round-trips', () => {
    expect(parseRoute('#/devices')).toEqual({ kind: 'devices' });
    expect(routeHash({ kind: 'devices' })).toBe('#/devices');
  });

  it('PUSH-1 the link a notification opens names its session and approval', () => {
    const hash = new URL(sessionLink('s 1', 'a/1'), 'https://app.example').hash;
    expect(parseRoute(hash)).toEqual({ kind: 'sessions', sessionId: 's 1', approvalId: 'a/1' });
    expect(parseRoute(new URL(sessionLink('s1', null), 'https://app.example').hash)).toEqual({
      kind: 'sessions',
      sessionId: 's1',
    });
    const route: AppRoute = { kind: 'sessions', sessionId: 's1', approvalId: 'a1' };
    expect(parseRoute(routeHash(route))).toEqual(route);
    expect(routeHash({ kind: 'sessions' })).toBe('#/');
  });
});
