import { describe, expect, it } from 'vitest';
import { parentRoute, parseRoute, parseRouteWithProblem, routeHash, type AppRoute } from '../../../lib/client/appRoute';

describe('UX-1 every view has an address, parsed strictly', () => {
  const routes: AppRoute[] = [
    { kind: 'sessions', sessionId: 's-1' },
    { kind: 'output', sessionId: 's-1', runId: 'r 1', commandId: 'c/1', at: null },
    { kind: 'output', sessionId: 's-1', runId: 'r1', commandId: 'c1', at: 5 * 1024 * 1024 },
    { kind: 'output', sessionId: 's-1', runId: 'r1', commandId: 'c1', at: 0 },
    { kind: 'devices' },
  ];
  it.each(routes)('UX-1 round-trips %o', (route) => {
    expect(parseRouteWithProblem(routeHash(route))).toEqual({ route, problem: null });
  });

  it('UX-1 the session list is the address with no view, and no problem', () => {
    expect(parseRouteWithProblem('')).toEqual({ route: { kind: 'sessions' }, problem: null });
    expect(parseRouteWithProblem('#/')).toEqual({ route: { kind: 'sessions' }, problem: null });
  });

  const hostile = [
    '#/nowhere',
    '#/output?session=s&run=r',
    '#/output?session=s&run=r&command=c&at=-1',
    '#/output?session=s&run=r&command=c&at=1e9',
    '#/output?session=s&run=r&command=c&at=99999999999999999',
    '#/output?session=s&run=r&command=c&token=secret',
    '#/?session=s&token=secret',
    '#/devices?token=secret',
    '#/files?dir=a&dir=b',
    `#/?session=${'s'.repeat(201)}`,
    '#/read?url=javascript:alert(1)',
    '#/read?url=file:///etc/passwd',
    '#/read?url=not a url',
    '#/preview?dir=/x',
    `#/files?path=${'a'.repeat(20_000)}`,
    '#/__proto__',
    '#/constructor?x=1',
  ];
  it.each(hostile)('UX-1 %s lands on the list with a reason', (hash) => {
    const parsed = parseRouteWithProblem(hash);
    expect(parsed.route).toEqual({ kind: 'sessions' });
    expect(parsed.problem).toMatch(/does not open anything/);
    expect(parseRoute(hash)).toEqual({ kind: 'sessions' });
  });

  it('UX-1 no address the app makes carries a token', () => {
    for (const route of routes) expect(routeHash(route)).not.toMatch(/token/i);
  });

  it('UX-1 an output goes up to its session, anything else to the list', () => {
    expect(parentRoute({ kind: 'output', sessionId: 's', runId: 'r', commandId: 'c', at: 3 })).toEqual({
      kind: 'sessions',
      sessionId: 's',
    });
    expect(parentRoute({ kind: 'sessions', sessionId: 's' })).toEqual({ kind: 'sessions' });
    expect(parentRoute({ kind: 'accounts' })).toEqual({ kind: 'sessions' });
  });
});
