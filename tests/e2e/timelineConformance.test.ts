import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { AGENT_INSTALL_TIMEOUT_MS, AGENT_TEST_TIMEOUT_MS, installedAgents } from '../fixtures/agentPackages';
import { codexSettings, createAgentSession, waitForRows } from '../fixtures/agentSessions';
import { codexConformanceModel, codexConformanceTurns, scriptedCodexLines } from '../fixtures/codexConformanceTurns';
import { injectCodexEvents } from '../fixtures/codexEventInjector';
import { codexTimelineConfigToml, STORY_BEFORE } from '../fixtures/fakeCodexTimeline';
import { allSettled, conformanceRandom, conformanceSeed, kindCounts, rowState } from '../fixtures/timelineConformance';
import { waitUntil } from '../fixtures/waitUntil';
import { keptScreenshotPath, newPairingCode, waitConnected } from './appHarness';
import { pairedPage, useModelAppSuite } from './appSuite';
import { useConformancePage } from './timeline/conformancePage';
import { expectDrawnThroughReloads, expectedRendering, readRenderedRows, withoutIndex } from './timeline/renderedRows';

// TL-3 TL-4 in real Chromium against the real runtime and the real Codex: the rows a long mixed
// session shows live, after a reload with the network blocked (from the app's IndexedDB cache),
// after a reload online (from the runtime) and after a runtime SIGKILL and restart are the
// runtime's row list (ids, order, states), and the rows drawn, counted per kind over the whole
// virtualized list, match it.

const SEED = conformanceSeed();
const random = conformanceRandom(SEED);
const seeded = (what: string) => `${what} (seed ${SEED}; replay with HBCODE_CONFORMANCE_SEED=${SEED})`;
const DESKTOP_1440 = { viewport: { width: 1440, height: 900 } };

describe('TL-3 timeline conformance in Chromium: live, after reloads and after a restart, the runtime’s rows', () => {
  const model = codexConformanceModel();
  const suite = useModelAppSuite((request) => model.script(request), {
    runtime: ({ modelUrl, projectDir }) => {
      fs.writeFileSync(path.join(projectDir, 'story.txt'), STORY_BEFORE);
      return {
        env: {
          HBCODE_CODEX_BIN: injectCodexEvents(installedAgents().codexBin, scriptedCodexLines),
          HBCODE_CODEX_CONFIG_TOML: codexTimelineConfigToml(modelUrl),
        },
      };
    },
    timeoutMs: AGENT_INSTALL_TIMEOUT_MS,
  });
  const conformance = useConformancePage(suite);

  it(
    'TL-3 TL-4 TL-1 TL-9 the rows drawn live, after a reload offline and online, and after a restart are the runtime’s rows; screenshots of the long turn',
    async () => {
      const { runtime, client, context, page } = conformance;
      const sessionId = await createAgentSession(
        client,
        'codex',
        undefined,
        codexSettings({ sandbox: 'danger-full-access' }),
      );
      await conformance.open(sessionId);
      // The desktop-size page pairs while the turns run (pairing a new browser takes a while).
      const pairing = newPairingCode(runtime).then((code) => pairedPage(suite, DESKTOP_1440, code));
      pairing.catch(() => undefined);
      // Live: the page follows the session while the turns run.
      const turns = codexConformanceTurns(model, client, sessionId, runtime.projectDir);
      const middle = random.shuffled([turns.tour, turns.approvals, turns.stop, turns.steerAndQueue, turns.failedTurn]);
      const order = ['subagent', ...middle.map((turn) => turn.name)].join(', ');
      await turns.subagent();
      for (const turn of middle) await turn();
      const rows = await waitForRows(client, sessionId, allSettled, 180_000);
      const expected = expectedRendering(rows);
      const what = (phase: string) =>
        seeded(
          `${phase}; turns ${order}; runtime rows:\n${rows.map((r) => `${r.id} ${r.kind} ${rowState(r)}`).join('\n')}`,
        );

      // Every kind the real Codex makes here is drawn, as many of each as the runtime has.
      const counts = kindCounts(rows);
      for (const kind of [
        'message',
        'command',
        'agentText',
        'reasoning',
        'plan',
        'fileChange',
        'toolCall',
        'subagent',
        'turnEnd',
        'agentError',
      ])
        expect(counts[kind], what(kind)).toBeGreaterThan(0);
      await expectDrawnThroughReloads(page, context, rows, what);

      // Screenshots of the long mixed turn after the reload: its message at the top of the view.
      const tour = rows.find((r) => r.kind === 'message' && r.text === 'Edit the story')!;
      // Each page is shot right after a walk found all its rows drawn: the list holds the whole session.
      const shoot = async (shot: Page, size: string) => {
        await shot.getByTestId('timeline').evaluate((box, id) => {
          const item = box.querySelector(`[data-row-id="${CSS.escape(id)}"]`);
          if (item) box.scrollTop += item.getBoundingClientRect().top - box.getBoundingClientRect().top;
        }, tour.id);
        // The rows brought into view show their bodies before the picture is taken.
        await waitUntil(
          async () => (await shot.locator('[data-testid="timeline"] .timeline-item[data-pending]').count()) === 0,
          'the rows in view are drawn',
        );
        for (const colorScheme of ['light', 'dark'] as const) {
          await shot.emulateMedia({ colorScheme });
          await shot.screenshot({ path: keptScreenshotPath('timeline-long-turn', `${size}-${colorScheme}`) });
        }
      };
      await shoot(page, 'phone');
      const desktop = await pairing;
      await desktop.goto(`${runtime.appOrigin}/#/?session=${sessionId}`);
      await waitConnected(desktop);
      expect(withoutIndex(await readRenderedRows(desktop)), what('at desktop size')).toEqual(expected);
      await shoot(desktop, 'desktop');
      await desktop.context().close();

      // A SIGKILL and a restart: the page reconnects and draws the same rows, now from the new runtime.
      await conformance.killAndRestart();
      const { client: restarted, page: reloaded } = conformance;
      expect(
        (await waitForRows(restarted, sessionId, allSettled)).map((r) => r.id),
        what('the runtime rows after a restart'),
      ).toEqual(rows.map((r) => r.id));
      expect(withoutIndex(await readRenderedRows(reloaded)), what('after a runtime restart')).toEqual(expected);
    },
    AGENT_TEST_TIMEOUT_MS * 2,
  );
});
