// What the app's browser test files start alike: for a describe block, the real runtime on
// folders of its own (with a fake model server in front of an agent when one is scripted) and
// Chromium, started before its tests and stopped after them; and pages paired with that runtime.
import os from 'node:os';
import path from 'node:path';
import type { Browser, BrowserContextOptions, Page } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { AGENT_INSTALL_TIMEOUT_MS, installedAgents } from '../fixtures/agentPackages';
import { codexConfigToml, codexTurnScript, type CodexStep } from '../fixtures/fakeCodexModel';
import { connectChromium } from '../fixtures/sharedChromium';
import {
  startFakeModelServer,
  type FakeModelServer,
  type RecordedRequest,
  type ScriptedReply,
} from '../fixtures/fakeModelServer';
import { makeRuntimeDirs, type RuntimeDirs } from '../fixtures/runtimeDirs';
import { startRuntimeProcess, type RuntimeProcess, type RuntimeProcessOptions } from '../fixtures/runtimeProcess';
import { waitUntil } from '../fixtures/waitUntil';
import { DESKTOP_CONTEXT, newPairingCode, PHONE_CONTEXT, pairThroughLink, startupPairingCode } from './appHarness';

export interface AppSuite {
  /** The runtime of the describe block (from its beforeAll on). */
  readonly runtime: RuntimeProcess;
  /** Chromium, shared by the block's tests. */
  readonly browser: Browser;
}

export interface ModelAppSuite extends AppSuite {
  /** The fake model server the runtime's agent talks to. */
  readonly model: FakeModelServer;
}

type ModelScript = (request: RecordedRequest, index: number) => ScriptedReply;

interface SuiteOptions {
  /**
   * The runtime's options, asked for once its folders exist (a test writes its project's files
   * into `projectDir` here) and the model server is up (`modelUrl`, empty without one).
   */
  runtime?: (setup: { modelUrl: string; projectDir: string }) => RuntimeProcessOptions | Promise<RuntimeProcessOptions>;
  /** How long starting may take (an agent's first start installs it). */
  timeoutMs?: number;
}

function started<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`${what} is started in the describe block's beforeAll`);
  return value;
}

function registerSuite(script: ModelScript | undefined, options: SuiteOptions): ModelAppSuite {
  let dirs: RuntimeDirs | undefined;
  let model: FakeModelServer | undefined;
  let runtime: RuntimeProcess | undefined;
  let browser: Browser | undefined;
  beforeAll(async () => {
    // Connecting to Chromium needs nothing of the runtime: it goes on while the runtime starts.
    const connecting = connectChromium().then((connected) => (browser = connected));
    // Awaited below; until then a failure to connect must not count as an unhandled rejection.
    connecting.catch(() => undefined);
    try {
      dirs = makeRuntimeDirs();
      if (script) model = await startFakeModelServer(script);
      const extra = (await options.runtime?.({ modelUrl: model?.url ?? '', projectDir: dirs.projectDirs[0]! })) ?? {};
      runtime = await startRuntimeProcess({ dataDir: dirs.dataDir, projectDirs: dirs.projectDirs, ...extra });
    } finally {
      await connecting;
    }
  }, options.timeoutMs);
  afterAll(async () => {
    await browser?.close();
    await runtime?.stopIfRunning();
    await model?.close();
    dirs?.remove();
  });
  return {
    get runtime() {
      return started(runtime, 'the runtime');
    },
    get browser() {
      return started(browser, 'Chromium');
    },
    get model() {
      return started(model, 'the fake model server');
    },
  };
}

/** The runtime and Chromium for the tests of the describe block this is called in. */
export function useAppSuite(options: SuiteOptions = {}): AppSuite {
  return registerSuite(undefined, options);
}

/** The same with a fake model server answering by `script` in front of the runtime's agent. */
export function useModelAppSuite(script: ModelScript, options: SuiteOptions = {}): ModelAppSuite {
  return registerSuite(script, options);
}

/**
 * The real Codex, installed and sandboxed (workspace-write, so leaving the sandbox needs an
 * approval), in front of a fake model that plays `steps` in turn and then `otherwise`; Claude is
 * not found.
 */
export function useSandboxedCodexAppSuite(steps: CodexStep[], otherwise: CodexStep): ModelAppSuite {
  return useModelAppSuite(
    codexTurnScript(() => steps.shift() ?? otherwise),
    {
      runtime: ({ modelUrl }) => ({
        env: {
          HBCODE_CODEX_BIN: installedAgents().codexBin,
          HBCODE_CODEX_CONFIG_TOML: codexConfigToml(modelUrl, 'sandbox_mode = "workspace-write"'),
          HBCODE_AGENT_CACHE: path.join(os.tmpdir(), 'hbcode-no-agent-packages'),
        },
      }),
      timeoutMs: AGENT_INSTALL_TIMEOUT_MS,
    },
  );
}

/**
 * A page in a browser context of its own, paired with the runtime through the pairing link and
 * connected. `code`: a pairing code (by default the one the runtime printed at start-up, which is
 * single-use); `permissions`: granted to the app's origin first (e.g. the clipboard).
 */
export async function pairedPage(
  suite: AppSuite,
  contextOptions: BrowserContextOptions = {},
  code?: string,
  permissions: string[] = [],
): Promise<Page> {
  const context = await suite.browser.newContext(contextOptions);
  if (permissions.length > 0) await context.grantPermissions(permissions, { origin: suite.runtime.appOrigin });
  const page = await context.newPage();
  await pairThroughLink(page, suite.runtime.appOrigin, code ?? startupPairingCode(suite.runtime));
  return page;
}

/** A phone (390×844) paired with the start-up code and a desktop paired with a new one. */
export async function phoneAndDesktop(suite: AppSuite): Promise<{ phone: Page; desktop: Page }> {
  const phone = await pairedPage(suite, PHONE_CONTEXT);
  return { phone, desktop: await pairedPage(suite, DESKTOP_CONTEXT, await newPairingCode(suite.runtime)) };
}

/**
 * A shell session titled `title` in the first project, made over the protocol like any other
 * client, with `commands` sent in order; resolves once every one has finished and is complete.
 */
export async function seedShellSession(
  runtime: RuntimeProcess,
  title: string,
  commands: readonly string[],
): Promise<void> {
  const client = await runtime.connect();
  try {
    const { projects } = await client.call('projects.list');
    const { session } = await client.call('sessions.create', { projectId: projects[0]!.id, agent: 'shell', title });
    for (const [i, text] of commands.entries())
      await client.call('chat.send', { sessionId: session.id, operationId: `seed-${i}`, text });
    await waitUntil(async () => {
      const { rows } = await client.call('sessions.timeline', { sessionId: session.id });
      const finished = rows.filter((r) => r.kind === 'command');
      return finished.length === commands.length && finished.every((r) => r.status !== 'running' && r.complete);
    }, 'the seeded commands finish');
  } finally {
    client.close();
  }
}
