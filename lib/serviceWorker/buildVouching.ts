/// <reference lib="webworker" />
import { buildDigest, type BuildFiles } from '../protocol/buildDigest';
import { BuildStatusRequestSchema, BuildStatusSchema, VouchAnswerSchema, type BuildRefused, type BuildStatus, type BuildStatusRequest, type VouchRequest } from '../protocol/buildVouchMessages';
import { decideVouch, type VouchedBy } from './vouchDecision';

/** How long an install waits for a page to ask the desktop; then it fails and the browser retries later. */
export const VOUCH_WAIT_MS = 60_000;
/** How long the installed worker has to say which build it is; one that cannot predates vouching. */
const ACTIVE_STATUS_WAIT_MS = 10_000;
/** How often the installing worker looks for pages it has not asked yet (one may open meanwhile). */
const ASK_EVERY_MS = 1_000;
/** How each build was let in, kept past this worker's restarts (the browser stops idle workers). */
const VOUCHES_CACHE = 'hbcode-build-vouches';
const vouchKey = (self: ServiceWorkerGlobalScope, digest: string) => new URL(`/.vouch/${digest}`, self.location.origin).href;

export class BuildNotVouchedError extends Error {
  readonly code = 'build_not_vouched';
}

/**
 * RLY-5: this worker's build installs only when the desktop vouches for its digest. The digest is
 * computed here from the very list the worker checks its files against, so a list changed to
 * match changed files changes the digest. The open pages run the installed (trusted) code: they
 * ask the desktop with `app.build` and answer.
 */
export function startBuildVouching(self: ServiceWorkerGlobalScope, files: BuildFiles): void {
  const digest = buildDigest(files);
  let vouchedBy: VouchedBy | null = null;

  self.addEventListener('install', (event: ExtendableEvent) => {
    event.waitUntil(
      (async () => {
        const offered = await digest;
        const firstInstall = !(await activeWorkerVouches(self.registration.active));
        const decision = decideVouch({ offered, firstInstall, desktopDigest: firstInstall ? null : await askPages(self, offered) });
        if (decision.accept) {
          vouchedBy = decision.vouchedBy;
          await (await caches.open(VOUCHES_CACHE)).put(vouchKey(self, offered), new Response(decision.vouchedBy));
          return;
        }
        if (decision.reason === 'mismatch') {
          const refused: BuildRefused = { type: 'HBCODE_BUILD_REFUSED', offered, vouched: decision.vouched };
          for (const client of await self.clients.matchAll({ type: 'window', includeUncontrolled: true })) client.postMessage(refused);
        }
        throw new BuildNotVouchedError(decision.reason === 'mismatch' ? 'the desktop vouches for another build' : 'no page answered for the desktop');
      })(),
    );
  });

  self.addEventListener('message', (event: ExtendableMessageEvent) => {
    if (!BuildStatusRequestSchema.safeParse(event.data).success || !event.ports[0]) return;
    const port = event.ports[0];
    event.waitUntil(
      (async () => {
        const value = await digest;
        const kept = vouchedBy ?? (await (await caches.match(vouchKey(self, value), { cacheName: VOUCHES_CACHE }))?.text());
        const vouched = kept === 'desktop' || kept === 'firstInstall' ? kept : null;
        port.postMessage({ type: 'HBCODE_BUILD_STATUS_ANSWER', digest: value, vouched } satisfies BuildStatus);
      })(),
    );
  });
}

/**
 * Whether the installed worker is one that takes only vouched builds. None installed, or one from
 * before vouching (its pages cannot answer a vouch request, so requiring one would keep that
 * device on it forever): the new build is trusted on first use, no weaker than that worker was.
 * The installed worker's code is on the device, so a relay cannot make ours keep silent.
 */
function activeWorkerVouches(active: ServiceWorker | null): Promise<boolean> {
  if (!active) return Promise.resolve(false);
  return new Promise((resolve) => {
    const channel = new MessageChannel();
    const timer = setTimeout(() => resolve(false), ACTIVE_STATUS_WAIT_MS);
    channel.port1.onmessage = (event) => {
      clearTimeout(timer);
      resolve(BuildStatusSchema.safeParse(event.data).success);
    };
    active.postMessage({ type: 'HBCODE_BUILD_STATUS' } satisfies BuildStatusRequest, [channel.port2]);
  });
}

/**
 * Asks every open page of the app for the desktop's digest; the first answer wins, null when none
 * came in VOUCH_WAIT_MS. Uncontrolled pages too: Chromium lists none as controlled for a worker
 * still installing. A page answers with what the desktop said over its own connection; a page
 * whose code the relay served (a first visit, a reload that bypassed the worker) could lie, but
 * such a page already runs the relay's code (see docs/protocol.md, RLY-5's limits).
 */
function askPages(self: ServiceWorkerGlobalScope, offered: string): Promise<string | null> {
  const request: VouchRequest = { type: 'HBCODE_VOUCH_REQUEST', digest: offered };
  return new Promise((resolve) => {
    const asked = new Set<string>();
    const finish = (answer: string | null) => {
      clearInterval(poll);
      clearTimeout(deadline);
      resolve(answer);
    };
    const askNewPages = async () => {
      for (const client of await self.clients.matchAll({ type: 'window', includeUncontrolled: true })) {
        if (asked.has(client.id)) continue;
        asked.add(client.id);
        const channel = new MessageChannel();
        channel.port1.onmessage = (event) => {
          const answer = VouchAnswerSchema.safeParse(event.data);
          if (answer.success) finish(answer.data.digest);
        };
        client.postMessage(request, [channel.port2]);
      }
    };
    const poll = setInterval(() => void askNewPages(), ASK_EVERY_MS);
    const deadline = setTimeout(() => finish(null), VOUCH_WAIT_MS);
    void askNewPages();
  });
}
