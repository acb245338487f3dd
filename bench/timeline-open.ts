/**
 * TL-4's price of a long history: opening a session whose agent history has 5,000 items, against
 * one of 50 items, measured from the app's data layer (`TimelineStore.open`, what `useTimeline`
 * runs) until its first rows are there: the call, the runtime's page assembly through the agent's
 * `historyPage`, the answer's validation. The agent is the tests' scripted agent double (its
 * history already in its memory after the first read), so the line shows the runtime's and the
 * client's share, not Codex's or Claude's own read.
 */
import type { RpcClient } from '../lib/client/rpcClient';
import type { TimelinePageCache } from '../lib/client/timeline/timelinePageCache';
import { DEFAULT_FIRST_PAGE_SIZE, TimelineStore } from '../lib/client/timeline/timelineStore';
import { writeHistory } from '../tests/fixtures/scriptedAgent';
import { createScriptedSession, longHistory, startScriptedRuntime } from '../tests/fixtures/scriptedAgentSessions';
import type { Benchmark, BenchOutcome } from './lib/report';
import { median, now, rotateRounds } from './lib/rounds';

const LONG = 5_000;
const SHORT = 50;
const ROUNDS = 30;

/** Pages are kept nowhere: the bench measures the online open. */
const noCache: TimelinePageCache = { read: async () => null, save: async () => undefined };

async function timeToFirstRows(client: RpcClient, sessionId: string, expected: number): Promise<number> {
  const store = new TimelineStore({ client, sessionId, parentItemId: null, cache: noCache });
  const started = now();
  await store.open();
  const elapsed = now() - started;
  const rows = store.getSnapshot().rows.length;
  store.close();
  if (rows !== expected) throw new Error(`expected ${expected} first rows, got ${rows}`);
  return elapsed;
}

export const timelineOpen: Benchmark = {
  name: 'timeline-open',
  async run(progress): Promise<BenchOutcome> {
    const scripted = await startScriptedRuntime();
    const client = await scripted.runtime.connect();
    try {
      const long = await createScriptedSession(client);
      const short = await createScriptedSession(client);
      writeHistory(scripted.historyDir, long, null, longHistory(LONG));
      writeHistory(scripted.historyDir, short, null, longHistory(SHORT));
      const firstPage = Math.min(DEFAULT_FIRST_PAGE_SIZE, LONG);
      const cold = {
        long: await timeToFirstRows(client, long, firstPage),
        short: await timeToFirstRows(client, short, SHORT),
      };
      progress(
        `TL-4: first opens (the agent reads its file): ${cold.long.toFixed(1)} ms for ${LONG}, ${cold.short.toFixed(1)} ms for ${SHORT}`,
      );
      const results = await rotateRounds(
        ROUNDS,
        { long: () => timeToFirstRows(client, long, firstPage), short: () => timeToFirstRows(client, short, SHORT) },
        progress,
        (ms) => `${ms.toFixed(2)} ms`,
      );
      return {
        comparisons: [
          {
            rule: 'TL-4',
            label: 'time to first rows of a session (median)',
            unit: 'ms',
            better: 'lower',
            oursName: `${LONG}-item history`,
            referenceName: `${SHORT}-item history`,
            ours: median(results.long),
            reference: median(results.short),
            target: 1.5,
          },
        ],
        parameters: { longItems: LONG, shortItems: SHORT, rounds: ROUNDS, firstPageRows: firstPage },
        measurements: { longMs: results.long, shortMs: results.short, coldLongMs: cold.long, coldShortMs: cold.short },
        notes: [
          `The app opens at the newest ${DEFAULT_FIRST_PAGE_SIZE} rows and reads older pages as the user scrolls up; the 50-item session is that one page whole.`,
        ],
      };
    } finally {
      client.close();
      await scripted.runtime.stop();
      scripted.remove();
    }
  },
};
