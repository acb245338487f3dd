// RLY-6 RLY-7 together against the real assembly: a real ACME server (Debian's pebble, every name
// resolving to loopback), a real nats-server, a relay node with a TLS port behind the relay's
// public TLS port, and a runtime started with `--acme-directory`. The desktop gets its certificate
// through the relay (the CA's TLS-ALPN-01 validation crosses the node like any client), keeps its
// key to itself, and then serves its app on its relay name under that certificate.
import fs from 'node:fs';
import https from 'node:https';
import path from 'node:path';
import tls from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../../server/runtime/paths';
import { startPassthroughRelay, type PassthroughRelay } from '../../fixtures/relay/passthroughRelay';
import { waitUntil } from '../../fixtures/waitUntil';

let relay: PassthroughRelay;

/** GET `/` on the desktop's relay name through the relay's public TLS port, trusting only `ca`; the peer certificate too. */
function getIndex(ca: string | Buffer): Promise<{ status: number; body: string; peer: tls.PeerCertificate }> {
  const origin = new URL(relay.names.appOrigin);
  return new Promise((resolve, reject) => {
    const request = https.request(
      {
        host: '127.0.0.1',
        port: relay.balancer.port,
        servername: origin.hostname,
        ca,
        path: '/',
        headers: { host: origin.host },
        agent: false,
      },
      (res) => {
        const peer = (res.socket as tls.TLSSocket).getPeerCertificate();
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8'), peer }),
        );
        res.on('error', reject);
      },
    );
    request.on('error', reject);
    request.end();
  });
}

/** Every file under `dir`, recursively. */
function filesUnder(dir: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((entry) => (entry.isDirectory() ? filesUnder(path.join(dir, entry.name)) : [path.join(dir, entry.name)]));
}

beforeAll(async () => {
  relay = await startPassthroughRelay({ acme: true });
}, 180_000);

afterAll(async () => {
  await relay?.stop();
});

describe('RLY-6 RLY-7 a desktop on a relay gets its certificate by ACME through the relay and serves its names with it', () => {
  it('RLY-7 the CA validates through the relay node, the desktop serves its app under the issued certificate, and its key stays in its data folder, owner-only', async () => {
    const acme = relay.acme!;
    // Until the certificate is issued the desktop has none to serve: the handshake fails.
    const served = await waitUntil(
      async () => {
        try {
          return await getIndex(acme.rootPem);
        } catch {
          return false;
        }
      },
      'the desktop serves its relay name under a certificate from the ACME server',
      { timeoutMs: 120_000, intervalMs: 500 },
    );
    expect(served.status).toBe(200);
    expect(served.body).toBe(fs.readFileSync(path.join(REPO_ROOT, 'out', 'index.html'), 'utf8'));
    // Issued for both names, by the ACME server's CA, not the test CA the other passthrough tests use.
    expect(served.peer.subjectaltname).toContain(`DNS:${relay.names.serverNames[0]}`);
    expect(served.peer.subjectaltname).toContain(`DNS:${relay.names.serverNames[1]}`);
    await expect(getIndex(relay.certs.caPem)).rejects.toThrow();
    // The key lives in the desktop's data folder only, readable by its owner alone.
    const keys = filesUnder(path.join(relay.dirs.dataDir, 'acme')).filter((file) =>
      file.endsWith('certificate-key.pem'),
    );
    expect(keys).toHaveLength(1);
    expect(fs.statSync(keys[0]!).mode & 0o077).toBe(0);
  }, 180_000);
});
