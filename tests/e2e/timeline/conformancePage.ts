// The page a Chromium conformance test (TL-3) follows its session in: a phone-sized context paired
// under the service worker (so a reload offline serves the app), a protocol client of its own, and
// a SIGKILL and restart of the runtime after which both reconnect.
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import type { RpcClient } from '../../../lib/client/rpcClient';
import { AGENT_INSTALL_TIMEOUT_MS } from '../../fixtures/agentPackages';
import type { RuntimeProcess } from '../../fixtures/runtimeProcess';
import { pairUnderServiceWorker, PHONE_CONTEXT, waitConnected } from '../appHarness';
import type { AppSuite } from '../appSuite';

export interface ConformancePage {
  readonly runtime: RuntimeProcess;
  readonly client: RpcClient;
  readonly context: BrowserContext;
  readonly page: Page;
  /** Opens the session in the page and waits for the connection. */
  open(sessionId: string): Promise<void>;
  /** SIGKILLs the runtime, restarts it on the same folders and reloads the page once it reconnected. */
  killAndRestart(): Promise<void>;
}

export function useConformancePage(suite: AppSuite): ConformancePage {
  let runtime: RuntimeProcess | undefined;
  let client: RpcClient | undefined;
  let context: BrowserContext | undefined;
  let page: Page | undefined;
  const ready = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('the conformance page is made in beforeAll');
    return value;
  };
  beforeAll(async () => {
    runtime = suite.runtime;
    client = await runtime.connect();
    context = await suite.browser.newContext(PHONE_CONTEXT);
    page = await context.newPage();
    await pairUnderServiceWorker(page, runtime);
  }, AGENT_INSTALL_TIMEOUT_MS);
  afterAll(async () => {
    client?.close();
    await context?.close();
    // A restarted runtime is this page's own: the suite stops the one it started.
    if (runtime !== suite.runtime) await runtime?.stopIfRunning();
  });
  return {
    get runtime() {
      return ready(runtime);
    },
    get client() {
      return ready(client);
    },
    get context() {
      return ready(context);
    },
    get page() {
      return ready(page);
    },
    async open(sessionId) {
      await ready(page).goto(`${ready(runtime).appOrigin}/#/?session=${sessionId}`);
      await waitConnected(ready(page));
    },
    async killAndRestart() {
      ready(client).close();
      await ready(runtime).kill();
      runtime = await ready(runtime).restart();
      client = await runtime.connect();
      await waitConnected(ready(page));
      await ready(page).reload();
      await waitConnected(ready(page));
    },
  };
}
