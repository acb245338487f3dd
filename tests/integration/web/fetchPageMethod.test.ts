import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RpcClient } from '../../../lib/client/rpcClient';
import { startRuntimeProcess, type RuntimeProcess } from '../../fixtures/runtimeProcess';
import { htmlPage, redirectTo, startTestWebServer, type TestWebServer } from '../../fixtures/testWebServer';
import { expectRpcError } from '../../fixtures/rpcErrors';

// MD-1 over the real protocol: the runtime answers web.fetchPage, and its errors keep their reason.
// The page server is on 127.0.0.1, so the runtime runs with the opt-in for local servers (SEC-5).

const withPrivateFetch = (command: string[]) => [...command, '--allow-private-fetch'];

describe('MD-1 web.fetchPage over the WebSocket', () => {
  let runtime: RuntimeProcess;
  let client: RpcClient;
  let server: TestWebServer;

  beforeAll(async () => {
    server = await startTestWebServer({
      '/page': htmlPage(
        Buffer.from([0x3c, 0x70, 0x3e, 0x63, 0x61, 0x66, 0xe9, 0x3c, 0x2f, 0x70, 0x3e]),
        'text/html; charset=windows-1252',
      ),
      '/moved': redirectTo('/page'),
      '/to-file': redirectTo('file:///etc/passwd'),
    });
    runtime = await startRuntimeProcess({ wrap: withPrivateFetch });
    client = await runtime.connect();
  });
  afterAll(async () => {
    client?.close();
    await runtime?.stop();
    await server?.close();
  });

  it('MD-1 answers the page decoded to UTF-8 with its final address and charset', async () => {
    const page = await client.call('web.fetchPage', { url: `${server.origin}/moved` });
    expect(page).toMatchObject({
      finalUrl: `${server.origin}/page`,
      status: 200,
      contentType: 'text/html',
      charset: 'windows-1252',
      redirects: [`${server.origin}/moved`],
    });
    expect(Buffer.from(page.dataBase64, 'base64').toString('utf8')).toBe('<p>café</p>');
  });

  it('MD-1 a refused redirect is an error with a stable code and reason; the socket stays usable', async () => {
    const error = await expectRpcError(
      client.call('web.fetchPage', { url: `${server.origin}/to-file` }),
      'invalid_params',
    );
    expect(error.data.reason).toBe('unsupported_scheme');
    expect((await client.call('web.fetchPage', { url: `${server.origin}/page` })).status).toBe(200);
  });
});

describe('SEC-5 web.fetchPage refuses local servers unless the runtime opted in', () => {
  it('SEC-5 a runtime without --allow-private-fetch refuses 127.0.0.1 with blocked_address, and the page server sees nothing', async () => {
    let requests = 0;
    const server = await startTestWebServer({
      '/page': (request, response) => (requests++, htmlPage('<p>x</p>')(request, response)),
    });
    const runtime = await startRuntimeProcess();
    const client = await runtime.connect();
    try {
      const error = await expectRpcError(
        client.call('web.fetchPage', { url: `${server.origin}/page` }),
        'invalid_params',
      );
      expect(error.data).toMatchObject({ reason: 'blocked_address', range: 'loopback', address: '127.0.0.1' });
      expect(error.message).toContain('--allow-private-fetch');
      expect(requests).toBe(0);
    } finally {
      client.close();
      await runtime.stop();
      await server.close();
    }
  });
});
