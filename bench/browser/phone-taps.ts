/**
 * Tap-to-visible at phone size (PWA-2, PWA-5, UX-1): in Chromium at 390x844 on the real app, the
 * time from a tap until what it asked for is on screen, for opening a session, opening an output,
 * sending a command, Stop, approving what the real Codex asks (against a fake model), and Find of
 * a line in a 22 MiB output. Each is measured without and
 * with 4x CPU throttling (Chromium's own, as on a slow phone), in the same run; Find is also set
 * against one 256 KiB page read and drawn in the same page, and against its 1 s budget.
 */
import type { CDPSession, Page } from 'playwright-core';
import { launchChromium } from '../../tests/fixtures/browser';
import { startRuntimeProcess } from '../../tests/fixtures/runtimeProcess';
import {
  commandRow,
  createShellSession,
  pairThroughLink,
  sendCommand,
  startupPairingCode,
  waitCommandFinished,
} from '../../tests/e2e/appHarness';
import { waitUntil } from '../../tests/fixtures/waitUntil';
import { installedAgents } from '../../tests/fixtures/agentPackages';
import { codexConfigToml, codexTurnScript, type CodexStep } from '../../tests/fixtures/fakeCodexModel';
import { startFakeModelServer } from '../../tests/fixtures/fakeModelServer';
import { benchSettings, formatSize, type Benchmark, type Comparison, type BenchOutcome } from '../lib/report';
import { median } from '../lib/rounds';
import { openReferenceSocket, referencePage } from './referencePage';

const PHONE = { viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true };
const THROTTLE = 4;
const LINE_BYTES = 15; // "line 000000001\n"
const NEEDLE = 'needle-in-the-output';
const FIND_BUDGET_MS = 1000;

type Tap = 'open session' | 'open output' | 'send' | 'Stop' | 'approve' | 'find';
const TAPS: Tap[] = ['open session', 'open output', 'send', 'Stop', 'approve', 'find'];
const emptyTimes = (): Record<Tap, number[]> => ({
  'open session': [],
  'open output': [],
  send: [],
  Stop: [],
  approve: [],
  find: [],
});

/** ms from `act` (a tap) until `shown` resolves. */
async function timed(act: () => Promise<unknown>, shown: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await act();
  await shown();
  return performance.now() - started;
}

/**
 * Approve, from the session list, in the Codex session: the fake model has Codex ask to run a
 * command outside its sandbox; the time runs from the tap on Allow until the request card is gone
 * and the asked command's row no longer waits for approval.
 */
async function approveRound(page: Page, codexTitle: string, steps: CodexStep[], round: string): Promise<number> {
  await page.locator('.session-entry').filter({ hasText: codexTitle }).tap();
  const echo = `echo approved-${round}`;
  steps.push({ command: echo, escalate: true });
  await sendCommand(page, `Run ${echo} outside the sandbox`);
  const request = page.getByRole('group', { name: 'Approval request' }).filter({ hasText: echo });
  await request.waitFor({ timeout: 120_000 });
  const asked = commandRow(page, `/bin/bash -lc '${echo}'`);
  await asked.locator('[data-status="waiting-approval"]').waitFor({ timeout: 60_000 });
  const approve = await timed(
    () => request.getByRole('button', { name: 'Allow', exact: true }).tap(),
    async () => {
      await request.waitFor({ state: 'detached', timeout: 60_000 });
      await asked.locator('[data-status]:not([data-status="waiting-approval"])').first().waitFor({ timeout: 60_000 });
    },
  );
  await waitCommandFinished(page, `/bin/bash -lc '${echo}'`, 120_000);
  await page.getByRole('button', { name: 'Back to sessions' }).tap();
  return approve;
}

/** Each tap once, from the session list, in the session whose big command is `big`; returns ms by tap. */
async function oneRound(
  page: Page,
  title: string,
  big: string,
  round: string,
): Promise<Omit<Record<Tap, number>, 'approve'>> {
  const entry = page.locator('.session-entry').filter({ hasText: title });
  await entry.waitFor();
  const openSession = await timed(
    () => entry.tap(),
    () => commandRow(page, big).waitFor(),
  );

  const openOutput = await timed(
    () => commandRow(page, big).tap(),
    () => page.locator('[data-testid="output"] [data-offset]').first().waitFor(),
  );
  const find = page.getByLabel('Find in output');
  await find.fill(NEEDLE);
  const found = await timed(
    () => find.press('Enter'),
    () => page.locator('[data-testid="output"] mark').filter({ hasText: NEEDLE }).first().waitFor(),
  );
  await page.getByRole('button', { name: 'Back to timeline' }).tap();

  const echo = `echo sent-${round}`;
  const box = page.getByRole('textbox', { name: 'Message' });
  await box.fill(echo);
  const send = await timed(
    () => page.locator('form.composer button[type="submit"]').tap(),
    () => commandRow(page, echo).waitFor(),
  );
  await waitCommandFinished(page, echo, 60_000);

  const sleeper = `sleep 600 # ${round}`;
  await sendCommand(page, sleeper);
  // Stop sits under the command's lines, in the same timeline item.
  const item = page.locator('.timeline-item').filter({ has: commandRow(page, sleeper) });
  await item.locator('[data-status="running"]').waitFor({ timeout: 60_000 });
  const stop = await timed(
    () => item.getByRole('button', { name: 'Stop' }).tap(),
    () => item.locator('[data-status="cancelled"]').waitFor({ timeout: 60_000 }),
  );
  await page.getByRole('button', { name: 'Back to sessions' }).tap();
  return { 'open session': openSession, 'open output': openOutput, send, Stop: stop, find: found };
}

export const phoneTaps: Benchmark = {
  name: 'phone-taps',
  async run(progress): Promise<BenchOutcome> {
    const { totalBytes, rounds } = benchSettings(22 * 1024 * 1024, 3);
    const lines = Math.floor(totalBytes / LINE_BYTES);
    // The needle sits at 70 % of the output, far from both ends the viewer may hold.
    const big = `awk 'BEGIN { for (i = 1; i <= ${lines}; i++) { if (i == ${Math.floor(lines * 0.7)}) print "${NEEDLE}"; printf "line %09d\\n", i } }'`;
    const codexSteps: CodexStep[] = [];
    const codexModel = await startFakeModelServer(
      codexTurnScript(() => codexSteps.shift() ?? { message: 'Nothing to run.' }),
    );
    // ACC-4: Codex sandboxed (workspace-write, approvals on request), so leaving the sandbox asks.
    const runtime = await startRuntimeProcess({
      env: {
        HBCODE_CODEX_BIN: installedAgents().codexBin,
        HBCODE_CODEX_CONFIG_TOML: codexConfigToml(codexModel.url, 'sandbox_mode = "workspace-write"'),
      },
    });
    const browser = await launchChromium();
    try {
      const setup = await runtime.connect();
      // A title of its own: a session with the default one is retitled by its first message.
      const codexTitle = 'Approvals';
      const { projects } = await setup.call('projects.list');
      const codexSessionId = (
        await setup.call('sessions.create', { projectId: projects[0]!.id, agent: 'codex', title: codexTitle })
      ).session.id;
      setup.close();
      const page = await browser.newPage(PHONE);
      await page.addInitScript({ content: 'globalThis.__name = (fn) => fn;' });
      await pairThroughLink(page, runtime.appOrigin, startupPairingCode(runtime));
      await createShellSession(page);
      progress(`   producing ${formatSize(lines * LINE_BYTES)} of output through the runtime`);
      await sendCommand(page, big);
      await waitCommandFinished(page, big, 600_000);
      const client = await runtime.connect();
      const session = (await client.call('sessions.list')).sessions.find((s) => s.id !== codexSessionId);
      const row = (await client.call('sessions.timeline', { sessionId: session!.id })).rows.find(
        (r) => r.kind === 'command',
      );
      client.close();
      if (!session || !row || row.kind !== 'command') throw new Error('the big command has no row');
      await openReferenceSocket(page, session.id, row.runId, row.commandId);
      await page.getByRole('button', { name: 'Back to sessions' }).tap();

      const cdp: CDPSession = await page.context().newCDPSession(page);
      const times: Record<'plain' | 'throttled', Record<Tap, number[]>> = {
        plain: emptyTimes(),
        throttled: emptyTimes(),
      };
      const pageReads: number[] = [];
      for (let round = 0; round < rounds; round++) {
        for (const mode of ['plain', 'throttled'] as const) {
          await cdp.send('Emulation.setCPUThrottlingRate', { rate: mode === 'throttled' ? THROTTLE : 1 });
          if (mode === 'plain') pageReads.push(await referencePage(page, Math.floor(row.byteLength * 0.7)));
          const took = {
            ...(await oneRound(page, session.title, big, `${round}-${mode}`)),
            approve: await approveRound(page, codexTitle, codexSteps, `${round}-${mode}`),
          };
          for (const tap of TAPS) times[mode][tap].push(took[tap]);
          progress(
            `   round ${round + 1} ${mode}: ${TAPS.map((tap) => `${tap} ${took[tap].toFixed(0)} ms`).join(', ')}`,
          );
        }
      }
      await cdp.send('Emulation.setCPUThrottlingRate', { rate: 1 });
      await waitUntil(async () => (await page.locator('.session-entry').count()) > 0, 'the list is back');

      const comparisons: Comparison[] = TAPS.map((tap) => ({
        rule: tap === 'find' ? 'PWA-2' : 'PWA-5',
        label: `tap to visible at 390x844, ${tap} (median): ${THROTTLE}x CPU throttling vs none`,
        unit: 'ms',
        better: 'lower',
        oursName: `${THROTTLE}x throttled`,
        referenceName: 'unthrottled',
        ours: median(times.throttled[tap]),
        reference: median(times.plain[tap]),
        target: null,
      }));
      comparisons.push(
        {
          rule: 'PWA-2',
          label: `find a line in ${formatSize(row.byteLength)} at 390x844 (median): the app's Find vs one 256 KiB page read and drawn`,
          unit: 'ms',
          better: 'lower',
          oursName: 'Find to the marked line',
          referenceName: 'one 256 KiB page',
          ours: median(times.plain.find),
          reference: median(pageReads),
          target: null,
        },
        {
          rule: 'PWA-2',
          label: `find a line in ${formatSize(row.byteLength)} at 390x844 (median) against its budget`,
          unit: 'ms',
          better: 'lower',
          oursName: 'Find to the marked line',
          referenceName: 'budget',
          ours: median(times.plain.find),
          reference: FIND_BUDGET_MS,
          target: 1,
        },
      );
      return {
        comparisons,
        parameters: { totalBytes: row.byteLength, rounds, throttle: THROTTLE, viewport: '390x844' },
        measurements: { ...times, pageReads },
        notes: [
          "Each time runs from the tap (Playwright, a touch tap) until the element it brings is in the DOM and visible: the session's command row, the first output line, the new command's row, the row saying cancelled, the approval card gone with its command no longer waiting, the <mark> on the found line.",
          `Throttling is Chromium's CPU throttling (Emulation.setCPUThrottlingRate ${THROTTLE}); the runtime and the network are not slowed. The two modes alternate round by round.`,
          'Approve: the real Codex, sandboxed (workspace-write), asks through its app-server to run `echo` outside the sandbox because the fake model server tells it to; the tap on Allow answers `approvals.answer`.',
        ],
      };
    } finally {
      await browser.close();
      await runtime.stop();
      await codexModel.close();
    }
  },
};
