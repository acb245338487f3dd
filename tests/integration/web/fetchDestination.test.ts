import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RuntimeError } from '../../../server/runtime/errors';
import { DEFAULT_WEB_FETCH_LIMITS, fetchWebPage, type WebFetchLimits } from '../../../server/runtime/web/fetchWebPage';
import {
  htmlPage,
  redirectTo,
  startLocalNameServer,
  startTestWebServer,
  type LocalNameServer,
  type Route,
  type TestWebServer,
} from '../../fixtures/testWebServer';

// SEC-5: by default web.fetchPage never connects to this machine or its networks. A fake admin
// server listens on IPv4 and IPv6 loopback and counts every request: each refused fetch must
// leave it at zero, whichever way the address was written, resolved or reached by a redirect.

async function refusal(promise: Promise<unknown>): Promise<RuntimeError> {
  const thrown = await promise.then(
    (result) => new Error(`expected the fetch to be refused, got ${JSON.stringify(result).slice(0, 200)}`),
    (error: unknown) => error,
  );
  expect(thrown).toBeInstanceOf(RuntimeError);
  return thrown as RuntimeError;
}

/** Stands in for a public web server: the only loopback address the hop test lets through. */
const STAND_IN_PUBLIC = '127.0.0.2';

describe('SEC-5 web.fetchPage refuses local destinations by default', () => {
  let admin: TestWebServer;
  let adminV6: TestWebServer;
  let standIn: TestWebServer;
  /** Stands in for the public site on the admin's own port, at the stand-in's address. */
  let samePort: TestWebServer;
  let names: LocalNameServer;
  const hits: string[] = [];
  const adminRoute: Route = (request, response) => {
    hits.push(`${request.socket.localAddress} ${request.url}`);
    htmlPage('<!doctype html><p>deleted everything</p>')(request, response);
  };

  /**
   * The admin on a port free on 127.0.0.1, on [::1] (so [::1] and localhost reach "the admin"
   * too) and on the stand-in's address (the rebinding test): another process may hold that port
   * on one of them, so a taken port means another try.
   */
  async function startAdmin(): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      admin = await startTestWebServer({ '/internal-admin': adminRoute }, '127.0.0.1');
      try {
        adminV6 = await startTestWebServer({ '/internal-admin': adminRoute }, '::1', admin.port);
        try {
          samePort = await startTestWebServer(
            { '/internal-admin': htmlPage('<!doctype html><p>the public site</p>') },
            STAND_IN_PUBLIC,
            admin.port,
          );
          return;
        } catch (error) {
          await adminV6.close();
          throw error;
        }
      } catch (error) {
        await admin.close();
        if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE' || attempt >= 20) throw error;
      }
    }
  }

  beforeAll(async () => {
    await startAdmin();
    names = await startLocalNameServer({
      'admin.rebind.test': '127.0.0.1',
      'metadata.rebind.test': '127.3.4.5',
      'flip.rebind.test': [STAND_IN_PUBLIC, '127.0.0.1'],
    });
    standIn = await startTestWebServer(
      {
        '/article': htmlPage('<!doctype html><p>public</p>'),
        '/to-loopback': redirectTo(`http://127.0.0.1:${admin.port}/internal-admin?action=delete`),
        '/to-ipv6': redirectTo(`http://[::1]:${admin.port}/internal-admin?action=delete`),
        '/to-mapped': redirectTo(`http://[::ffff:127.0.0.1]:${admin.port}/internal-admin?action=delete`),
        '/to-name': redirectTo(`http://admin.rebind.test:${admin.port}/internal-admin?action=delete`),
        '/hop': redirectTo('/to-loopback'),
      },
      STAND_IN_PUBLIC,
    );
  });
  afterAll(async () => {
    names?.close();
    await standIn?.close();
    await samePort?.close();
    await adminV6?.close();
    await admin?.close();
  });

  const target = (host: string) => `http://${host}:${admin.port}/internal-admin?action=delete`;

  it('SEC-5 a literal loopback or unspecified address, in any IPv4 or IPv6 spelling, is refused before connecting', async () => {
    for (const host of [
      '127.0.0.1',
      '127.0.0.2',
      '2130706433',
      '0x7f.1',
      '0.0.0.0',
      '[::1]',
      '[::ffff:127.0.0.1]',
      '[::ffff:7f00:1]',
      '[::127.0.0.1]',
      '[::ffff:0:127.0.0.1]',
      '[::]',
      'localhost',
    ]) {
      const error = await refusal(fetchWebPage(target(host)));
      expect({ host, code: error.code, reason: error.data.reason }).toEqual({
        host,
        code: 'invalid_params',
        reason: 'blocked_address',
      });
      expect(error.message).toContain('--allow-private-fetch');
    }
    expect(hits).toEqual([]);
  });

  it('SEC-5 a host name that resolves to loopback is refused at the address actually connected to', async () => {
    for (const name of ['admin.rebind.test', 'metadata.rebind.test']) {
      const error = await refusal(
        fetchWebPage(`http://${name}:${admin.port}/internal-admin?action=delete`, {
          ...DEFAULT_WEB_FETCH_LIMITS,
          lookup: names.lookup,
        }),
      );
      expect({ name, reason: error.data.reason, range: error.data.range }).toEqual({
        name,
        reason: 'blocked_address',
        range: 'loopback',
      });
      expect(error.message).toContain(name);
    }
    expect(hits).toEqual([]);
  });

  it('SEC-5 a public page that redirects to loopback is refused at that hop, for every spelling of it', async () => {
    const defaultRange = DEFAULT_WEB_FETCH_LIMITS.destinationRange;
    const limits: WebFetchLimits = {
      ...DEFAULT_WEB_FETCH_LIMITS,
      lookup: names.lookup,
      // The real rules, except that the stand-in server counts as public.
      destinationRange: (address) => (address === STAND_IN_PUBLIC ? null : defaultRange(address)),
    };
    expect(
      Buffer.from(
        (await fetchWebPage(`http://${STAND_IN_PUBLIC}:${standIn.port}/article`, limits)).dataBase64,
        'base64',
      ).toString(),
    ).toContain('public');
    for (const path of ['/to-loopback', '/to-ipv6', '/to-mapped', '/to-name', '/hop']) {
      const error = await refusal(fetchWebPage(`http://${STAND_IN_PUBLIC}:${standIn.port}${path}`, limits));
      expect({ path, reason: error.data.reason }).toEqual({ path, reason: 'blocked_address' });
      expect(error.message).toContain('a redirect from');
    }
    expect(hits).toEqual([]);
  });

  it('SEC-5 a name that rebinds to loopback after its first answer is checked on the address each connection uses', async () => {
    // The stand-in listens on the admin's port too (samePort): a check on one answer and a connection on the next would reach the admin.
    const defaultRange = DEFAULT_WEB_FETCH_LIMITS.destinationRange;
    const limits: WebFetchLimits = {
      ...DEFAULT_WEB_FETCH_LIMITS,
      lookup: names.lookup,
      destinationRange: (address) => (address === STAND_IN_PUBLIC ? null : defaultRange(address)),
    };
    const first = await fetchWebPage(`http://flip.rebind.test:${admin.port}/internal-admin`, limits);
    expect(Buffer.from(first.dataBase64, 'base64').toString()).toContain('the public site');
    const second = await refusal(fetchWebPage(`http://flip.rebind.test:${admin.port}/internal-admin`, limits));
    expect({ reason: second.data.reason, address: second.data.address }).toEqual({
      reason: 'blocked_address',
      address: '127.0.0.1',
    });
    expect(hits).toEqual([]);
  });
});
