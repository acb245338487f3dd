import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import QRCode from 'qrcode';
import type { CliOptions } from './cli';
import path from 'node:path';
import { AppStatic } from './http/appStatic';
import { createByteRoutes } from './http/byteRoutes';
import { createHttpServer, type HttpHandlers } from './http/httpServer';
import { startFallbackOrigin } from './fallbackOrigin';
import type { Origins } from './http/hostRouting';
import { PREVIEW_ID_PLACEHOLDER, previewFrameSource, type PreviewOrigins } from './http/previewOrigins';
import { pairingUrl } from './rpc/methodHandlers';
import { createRpcSocketServer } from './rpc/socketServer';
import { startEventLoopDelayLog } from './eventLoopDelayLog';
import type { Logger } from './runtime/log';
import { REPO_ROOT } from './runtime/paths';
import { Runtime, type RuntimeOptions } from './runtime/runtime';
import type { RelayLink, RelayLinkState } from './relayLink/relayLink';
import type { RelayNames } from './relayLink/relayNameServer';
import { acmeRelayCertificates } from './relayLink/acme/acmeRelayCertificates';
import { certificateFiles, type RelayCertificates } from './relayLink/relayTls';
import { startRelayLink } from './relayLink/startRelayLink';

const APP_HOSTNAME = 'hbcode.localhost';

function appUrl(options: CliOptions, port: number): URL {
  return options.publicUrl ?? new URL(`http://${APP_HOSTNAME}:${port}`);
}

/** ORG-2: by default each preview is a subdomain of the app host; ORG-3 flags choose otherwise. */
function previewOriginsOf(options: CliOptions, port: number): PreviewOrigins {
  return (
    options.previewOrigins ?? {
      kind: 'per-preview',
      template: `http://p-${PREVIEW_ID_PLACEHOLDER}.${APP_HOSTNAME}:${port}`,
    }
  );
}

export interface RunningRuntime {
  runtime: Runtime;
  server: http.Server;
  origins: Origins;
  /** What start-up prints: `http://localhost:PORT` when it leads to the app by name or by 127.0.0.1 (ORG-5), else the app origin. */
  entryOrigin: string;
  /** The link to the `--relay` relay (RLY-1), else null. */
  relay: RelayLinkState | null;
  stop(): Promise<void>;
}

/** A positive number of seconds from variable `name`, in milliseconds; undefined when unset. */
function secondsVariable(name: string): number | undefined {
  const value = process.env[name];
  if (value === undefined || value === '') return undefined;
  const seconds = Number(value);
  if (!Number.isFinite(seconds) || seconds <= 0)
    throw new Error(`${name} must be a positive number of seconds, not ${JSON.stringify(value)}.`);
  return Math.round(seconds * 1000);
}

/** Opens the store, recovers, then listens: /healthz answers 200 only once all of that is done. */
export async function startRuntime(
  options: CliOptions,
  log: Logger,
  extras: Pick<RuntimeOptions, 'agentDoubles' | 'pairingClock'> = {},
): Promise<RunningRuntime> {
  const stopEventLoopLog = startEventLoopDelayLog(process.env.HBCODE_DEBUG_EVENT_LOOP_LOG);
  const runtime = await Runtime.open({
    dataDir: options.dataDir,
    projectDirs: options.projectDirs,
    envToken: options.envToken,
    allowExternalFiles: options.allowExternalFiles,
    allowPrivateFetch: options.allowPrivateFetch,
    allowSecretFiles: options.allowSecretFiles,
    pairingGuessLimit: options.limits.pairing,
    attachments: { quota: options.limits.attachments },
    vapidSubject: options.vapidSubject,
    media: options.limits.media,
    previewChunkBytes: options.limits.previewChunkBytes,
    // ACC-3: how long a turn may go without an agent event before it shows as stalled.
    agentStallMs: secondsVariable('HBCODE_AGENT_STALL_SECONDS'),
    // SES-8: how long a Claude host with nothing to do stays.
    claudeHostIdleMs: secondsVariable('HBCODE_CLAUDE_HOST_IDLE_SECONDS'),
    // SES-5 TERM-5 ACC-6: the stop graces; tests shorten them (HBCODE_*_GRACE_MS).
    stopGraces: options.limits.stopGraces,
    log,
    ...extras,
  });
  const origins: Origins = {
    app: appUrl(options, options.port),
    port: options.port,
    previews: previewOriginsOf(options, options.port),
  };
  let rpc: ReturnType<typeof createRpcSocketServer> | null = null;
  const byteRoutes = createByteRoutes(runtime, () => origins.app.origin, log);
  let ready = false;
  const httpHandlers: HttpHandlers = {
    origins,
    app: new AppStatic(path.join(REPO_ROOT, 'out'), () => previewFrameSource(origins.previews)),
    ready: () => ready,
    upgradeRpc: (req, socket, head) => (rpc ? rpc.handleUpgrade(req, socket, head) : socket.destroy()),
    limits: options.limits.http,
    bytes: (req, res, url) => byteRoutes.handle(req, res, url),
  };
  const server = createHttpServer(httpHandlers);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  origins.port = port;
  origins.app = appUrl(options, port);
  origins.previews = previewOriginsOf(options, port);
  // ORG-5: without a public name, `localhost` checks that the browser reaches `hbcode.localhost`, and else leads to 127.0.0.1.
  const fallback = options.publicUrl
    ? null
    : await startFallbackOrigin({
        appOrigin: origins.app.origin,
        port,
        host: options.host,
        runtime,
        rpc: () => rpc,
        limits: options.limits.http,
        log,
      });
  if (fallback) httpHandlers.loopback = fallback.loopback;
  const socketServer = createRpcSocketServer(runtime, origins.app.origin, log, origins.previews, options.limits.socket);
  rpc = socketServer;
  let relay: RelayLink | null = null;
  let relayCertificates: RelayCertificates | null = null;
  if (options.relay && options.relayTls) {
    const relayTls = options.relayTls;
    const certificatesFor = (names: RelayNames) => {
      const files = relayTls.files;
      relayCertificates = files
        ? certificateFiles(files.certFile, files.keyFile, names.serverNames)
        : acmeRelayCertificates(options.acme, names.serverNames, options.dataDir, log);
      return relayCertificates;
    };
    relay = await startRelayLink(options.relay, options.dataDir, runtime, socketServer, log, {
      tlsPort: relayTls.port,
      certificates: certificatesFor,
      limits: options.limits.http,
    });
  }
  ready = true;

  let stopping: Promise<void> | null = null;
  return {
    runtime,
    server,
    origins,
    entryOrigin: fallback ? `http://localhost:${port}` : origins.app.origin,
    relay,
    stop() {
      stopping ??= (async () => {
        ready = false;
        relay?.close();
        relayCertificates?.stop?.();
        rpc?.close();
        server.closeAllConnections();
        await Promise.all([new Promise<void>((resolve) => server.close(() => resolve())), fallback?.close()]);
        await runtime.close();
        stopEventLoopLog();
      })();
      return stopping;
    },
  };
}

/** RLY-2: the same code on the desktop's relay name, which it serves itself over TLS through the relay. */
async function relayBannerLines(relay: RelayLinkState, code: string): Promise<string[]> {
  const link = pairingUrl(relay.passthroughOrigin, code);
  return [
    `  Relay:    ${relay.relayUrl.origin}  (desktop ${relay.desktopId})`,
    `  Pair a device through the relay (same code): ${link}`,
    '  Or scan this with a phone on any network:',
    await QRCode.toString(link, { type: 'terminal', small: true }),
  ];
}

/** What start-up prints: the app, a single-use pairing link and its QR code for a phone's camera (DEV-1). */
export async function startupBanner(running: RunningRuntime): Promise<string> {
  const { code, expiresAt } = running.runtime.auth.createPairingCode();
  const minutes = Math.round((expiresAt - Date.now()) / 60_000);
  const app = running.entryOrigin;
  const link = pairingUrl(app, code);
  return [
    'HB Code runtime is ready.',
    `  App:      ${app}`,
    `  Pair a device (code ${code}, valid once for ${minutes} minutes): ${link}`,
    "  Or scan this with the phone's camera:",
    await QRCode.toString(link, { type: 'terminal', small: true }),
    ...(running.relay ? await relayBannerLines(running.relay, code) : []),
    ...running.runtime.projects.map((p) => `  Project:  ${p.name}  ${p.directory}`),
    '',
  ].join('\n');
}
