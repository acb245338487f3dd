// Issue 25's browser assembly on loopback (RLY-6, RLY-7): a real nats-server, two relay nodes as
// child processes (each with a TLS port), a TCP balancer in front of their HTTP ports (where the
// desktop links) and one in front of their TLS ports (the relay's public TLS port), Debian's pebble
// validating TLS-ALPN-01 through that port, a runtime process that gets its certificate from it,
// and a Chromium whose HOME trusts pebble's root in its NSS database and nothing else extra.
import fs from 'node:fs';
import https from 'node:https';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { launchChromium } from '../../fixtures/browser';
import { startAcmeTestServer, type AcmeTestServer } from '../../fixtures/acmeTestServer';
import { startNatsServer, type NatsServer } from '../../fixtures/natsServer';
import { homeTrusting } from '../../fixtures/nssTrust';
import { startRelayChild, type RelayNodeHandle } from '../../fixtures/relayNodes';
import { makeRuntimeDirs, type RuntimeDirs } from '../../fixtures/runtimeDirs';
import { freePort, startRuntimeProcess, type RuntimeProcess } from '../../fixtures/runtimeProcess';
import { startTcpBalancer, type TcpBalancer } from '../../fixtures/tcpBalancer';
import { waitUntil } from '../../fixtures/waitUntil';

export interface RelayNodeWithTls {
  node: RelayNodeHandle;
  tlsPort: number;
}

export interface PassthroughAssembly {
  nats: NatsServer;
  /** The relay's public HTTP port (where desktops link); the runtime's `--relay` is `http://relay.localhost:PORT`. */
  linkBalancer: TcpBalancer;
  /** In front of the nodes' TLS ports; the public TLS port unless the caller put something before it. */
  tlsBalancer: TcpBalancer;
  publicTlsPort: number;
  acme: AcmeTestServer;
  dirs: RuntimeDirs;
  runtime: RuntimeProcess;
  /** `https://<desktopId>.relay.localhost:<publicTlsPort>` and the preview name's origin. */
  appOrigin: string;
  previewOrigin: string;
  /** The relay pairing link the runtime printed at start-up. */
  printedLink: string;
  browser: Browser;
  /** The nodes running now: node 1 (the desktop's), node 2 (the phone's); a test replaces those it kills. */
  nodes: RelayNodeWithTls[];
  /** A relay node as a child process with a TLS port, on `nats`, public on the balancers' ports. */
  startNode(nodeId: string): Promise<RelayNodeWithTls>;
  /** How many times the desktop linked to this node so far. */
  linkedOn(node: RelayNodeHandle): number;
  stop(): Promise<void>;
}

export interface PassthroughAssemblyOptions {
  /** Folders and files the runtime's project needs before it starts. */
  prepareProject?: (projectDir: string) => void;
  /** Where the public TLS port is when something (a hostile proxy) sits in front of `tlsBalancer`. */
  publicTlsPort?: (tlsBalancer: TcpBalancer) => Promise<number>;
  /** Extra runtime flags. */
  runtimeFlags?: string[];
  /** Extra environment of the runtime process (a terminal's HOME and SHELL, say). */
  runtimeEnv?: NodeJS.ProcessEnv;
  certificateTimeoutMs?: number;
}

const RELAY_LINK = /Pair a device through the relay \(same code\): (\S+)/;

/** GET `/` on `origin` through 127.0.0.1:`port` trusting only `ca`: true once it answers 200. */
function servesUnder(origin: string, port: number, ca: string): Promise<boolean> {
  const url = new URL(origin);
  return new Promise((resolve) => {
    const request = https.get(
      {
        host: '127.0.0.1',
        port,
        servername: url.hostname,
        ca,
        path: '/healthz',
        headers: { host: url.host },
        agent: false,
        timeout: 10_000,
      },
      (res) => {
        res.resume();
        resolve(res.statusCode === 200);
      },
    );
    request.on('timeout', () => request.destroy());
    request.on('error', () => resolve(false));
  });
}

export async function startPassthroughAssembly(options: PassthroughAssemblyOptions = {}): Promise<PassthroughAssembly> {
  const nats = await startNatsServer();
  const linkBalancer = await startTcpBalancer([]);
  const tlsBalancer = await startTcpBalancer([]);
  const publicTlsPort = options.publicTlsPort ? await options.publicTlsPort(tlsBalancer) : tlsBalancer.port;
  const startNode = async (nodeId: string): Promise<RelayNodeWithTls> => {
    const tlsPort = await freePort();
    const node = await startRelayChild(nats.url, nodeId, linkBalancer.port, ['--tls-port', String(tlsPort)]);
    return { node, tlsPort };
  };
  // The desktop links to node 1 (B); the phone's TLS connections go to node 2 (A) first.
  const nodes = [await startNode('node1'), await startNode('node2')];
  linkBalancer.setBackends([nodes[0]!.node.port]);
  tlsBalancer.setBackends([nodes[1]!.tlsPort, nodes[0]!.tlsPort]);
  const acme = await startAcmeTestServer({ tlsPort: publicTlsPort });
  const dirs = makeRuntimeDirs();
  options.prepareProject?.(dirs.projectDirs[0]!);
  const acmeCa = path.join(dirs.dataDir, '..', `acme-directory-ca-${path.basename(dirs.dataDir)}.pem`);
  fs.writeFileSync(acmeCa, acme.caBundle);
  const rootFile = `${acmeCa}.root.pem`;
  fs.writeFileSync(rootFile, acme.rootPem);
  const home = homeTrusting(rootFile);
  const relayUrl = `http://relay.localhost:${linkBalancer.port}`;
  const flags = [
    '--relay',
    relayUrl,
    '--acme-directory',
    acme.directoryUrl,
    '--acme-ca',
    acmeCa,
    '--relay-tls-port',
    String(publicTlsPort),
    ...(options.runtimeFlags ?? []),
  ];
  const runtime = await startRuntimeProcess({
    dataDir: dirs.dataDir,
    projectDirs: dirs.projectDirs,
    env: options.runtimeEnv,
    wrap: (command) => [...command, ...flags],
  });
  const printedLink = await waitUntil(
    () => RELAY_LINK.exec(runtime.output())?.[1],
    () => `the runtime prints its relay pairing link:\n${runtime.output()}`,
    30_000,
  );
  const appOrigin = new URL(printedLink).origin;
  const appUrl = new URL(appOrigin);
  const previewOrigin = `https://p-${appUrl.host}`;
  const linkedOn = (node: RelayNodeHandle) => (node.output().match(/desktop linked/g) ?? []).length;
  await waitUntil(
    () => linkedOn(nodes[0]!.node) === 1,
    () => `the desktop links to node 1:\n${nodes[0]!.node.output()}\n${runtime.output()}`,
    60_000,
  );
  const browser = await launchChromium([], { ...process.env, HOME: home });
  return {
    nats,
    linkBalancer,
    tlsBalancer,
    publicTlsPort,
    acme,
    dirs,
    runtime,
    appOrigin,
    previewOrigin,
    printedLink,
    browser,
    nodes,
    startNode,
    linkedOn,
    async stop() {
      await browser.close();
      await runtime.stopIfRunning();
      await acme.stop();
      await linkBalancer.close();
      await tlsBalancer.close();
      for (const { node } of nodes) await node.stop();
      await nats.stop();
      dirs.remove();
      for (const file of [acmeCa, rootFile]) fs.rmSync(file, { force: true });
      fs.rmSync(home, { recursive: true, force: true });
    },
  };
}

/** Waits until the desktop serves its app name under pebble's certificate through the public TLS port (RLY-7 done). */
export async function waitForCertificate(assembly: PassthroughAssembly, timeoutMs: number): Promise<void> {
  await waitUntil(
    () => servesUnder(assembly.appOrigin, assembly.publicTlsPort, assembly.acme.rootPem),
    () => `the desktop serves its relay name under pebble's certificate:\n${assembly.runtime.output()}`,
    { timeoutMs, intervalMs: 500 },
  );
}

/** A preview site of several files: a page, a style sheet, a script and an image. */
export function writePreviewSite(projectDir: string, marker: string): void {
  const site = path.join(projectDir, 'site');
  fs.mkdirSync(path.join(site, 'assets'), { recursive: true });
  fs.writeFileSync(
    path.join(site, 'index.html'),
    '<!doctype html><html><head><title>Relay site</title><link rel="stylesheet" href="assets/style.css"></head><body><h1 id="title">Relay site</h1><p id="out"></p><img id="logo" src="assets/logo.svg" alt="logo"><script src="assets/app.js"></script></body></html>',
  );
  fs.writeFileSync(path.join(site, 'assets', 'style.css'), '#title { color: rgb(1, 2, 3); }');
  fs.writeFileSync(path.join(site, 'assets', 'app.js'), `document.getElementById('out').textContent = '${marker}';`);
  fs.writeFileSync(
    path.join(site, 'assets', 'logo.svg'),
    '<svg xmlns="http://www.w3.org/2000/svg" width="40" height="20"><rect width="40" height="20" fill="teal"/></svg>',
  );
}
