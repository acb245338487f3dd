import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RpcClient } from '../../../lib/client/rpcClient';
import type { TimelineRow } from '../../../lib/protocol/rows';
import { EXPIRED_BY_RESTART } from '../../../server/runtime/agents/approvals';
import { AGENT_INSTALL_TIMEOUT_MS, AGENT_TEST_TIMEOUT_MS, installedAgents } from '../../fixtures/agentPackages';
import { codexSettings, createAgentSession, messageState, waitForRows } from '../../fixtures/agentSessions';
import { codexConformanceModel, codexConformanceTurns, scriptedCodexLines } from '../../fixtures/codexConformanceTurns';
import { injectCodexEvents } from '../../fixtures/codexEventInjector';
import { codexTimelineConfigToml, STORY_BEFORE } from '../../fixtures/fakeCodexTimeline';
import { startFakeModelServer, type FakeModelServer } from '../../fixtures/fakeModelServer';
import { startRuntimeProcess, type RuntimeProcess } from '../../fixtures/runtimeProcess';
import {
  allSettled,
  conformanceRandom,
  conformanceSeed,
  followLive,
  kindCounts,
  pagedRows,
  rowLines,
} from '../../fixtures/timelineConformance';
import { waitUntil } from '../../fixtures/waitUntil';

// TL-3 conformance for Codex: scripted turns of every kind the real Codex makes against the fake
// model (text, reasoning, plan, commands, a failed one and one that cannot start, a diff, tools,
// a subagent, approvals accepted, declined and expired, Stop, queue and steer, a failed turn); the
// rows followed live, the saved pages at seeded page sizes and the rows after a SIGKILL and a
// restart must be one list (ids, order, states).

const SEED = conformanceSeed();
const random = conformanceRandom(SEED);
const seeded = (what: string) => `${what} (seed ${SEED}; replay with HBCODE_CONFORMANCE_SEED=${SEED})`;

describe('TL-3 Codex timeline conformance: live, paged and after a restart, one list', () => {
  let fakeModel: FakeModelServer;
  let runtime: RuntimeProcess;
  let client: RpcClient;
  const model = codexConformanceModel();

  beforeAll(async () => {
    const { codexBin } = installedAgents();
    fakeModel = await startFakeModelServer((request) => model.script(request));
    runtime = await startRuntimeProcess({
      env: {
        HBCODE_CODEX_BIN: injectCodexEvents(codexBin, scriptedCodexLines),
        HBCODE_CODEX_CONFIG_TOML: codexTimelineConfigToml(fakeModel.url),
      },
    });
    fs.writeFileSync(path.join(runtime.projectDir, 'story.txt'), STORY_BEFORE);
    client = await runtime.connect();
  }, AGENT_INSTALL_TIMEOUT_MS);
  afterAll(async () => {
    client?.close();
    await runtime?.stopIfRunning();
    await fakeModel?.close();
  });

  it(
    'TL-3 TL-1 TL-9 ACC-4 ACC-6 every kind of Codex row: the live rows are the saved rows on every page size, and the same after a SIGKILL and a restart',
    async () => {
      const sessionId = await createAgentSession(
        client,
        'codex',
        undefined,
        codexSettings({ sandbox: 'danger-full-access' }),
      );
      const live = followLive(client, sessionId);
      const turns = codexConformanceTurns(model, client, sessionId, runtime.projectDir);

      const middle = random.shuffled([turns.tour, turns.approvals, turns.stop, turns.steerAndQueue, turns.failedTurn]);
      const order = ['subagent', ...middle.map((turn) => turn.name)];
      await turns.subagent();
      for (const turn of middle) await turn();

      const saved = await waitForRows(client, sessionId, allSettled, 180_000);
      const context = `${seeded(`turns ${order.join(', ')}`)}\n${rowLines(saved).join('\n')}\n--- live:\n${rowLines(live.rows()).join('\n')}`;
      // One row per id; every kind the fake can make with the real Codex is there.
      expect(new Set(saved.map((r) => r.id)).size, context).toBe(saved.length);
      const counts = kindCounts(saved);
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
        expect(counts[kind], `${kind}: ${context}`).toBeGreaterThan(0);
      const commands = saved.filter((r) => r.kind === 'command');
      // An earlier turn's command Codex reports during a later turn is not a row of that turn.
      expect(
        commands.filter((r) => r.command === 'echo late'),
        context,
      ).toEqual([]);
      expect(
        commands.filter((r) => r.declined),
        context,
      ).toHaveLength(1);
      expect(
        commands.filter((r) => r.status === 'failed' || (r.status === 'exited' && r.exitCode !== 0)).length,
        context,
      ).toBeGreaterThanOrEqual(2);
      expect(
        saved
          .filter((r) => r.kind === 'turnEnd')
          .map((r) => r.kind === 'turnEnd' && r.status)
          .sort(),
        context,
      ).toEqual(['completed', 'completed', 'completed', 'completed', 'completed', 'failed', 'interrupted']);

      // What a person followed live, merged from the notifications as the app merges them, is the saved list.
      await waitUntil(
        () => rowLines(live.rows()).join('\n') === rowLines(saved).join('\n'),
        () =>
          `the live rows match the saved rows (${seeded('')}):\n${rowLines(live.rows()).join('\n')}\n---\n${rowLines(saved).join('\n')}`,
        {
          timeoutMs: 30_000,
        },
      );
      const spawn = saved.find((r): r is Extract<TimelineRow, { kind: 'subagent' }> => r.kind === 'subagent')!;
      const child = (await client.call('sessions.timeline', { sessionId, parentItemId: spawn.itemId })).rows;
      expect(child.length, context).toBeGreaterThan(0);
      expect(rowLines(live.rows(spawn.itemId)), seeded('the subagent timeline live')).toEqual(rowLines(child));
      const sizes = random.pageSizes(4, 12);
      for (const limit of sizes) {
        expect(rowLines(await pagedRows(client, sessionId, limit)), seeded(`pages of ${limit}`)).toEqual(
          rowLines(saved),
        );
        expect(
          rowLines(await pagedRows(client, sessionId, limit, spawn.itemId)),
          seeded(`subagent pages of ${limit}`),
        ).toEqual(rowLines(child));
      }

      // An approval waits when the runtime is killed: after the restart it says expired (ACC-4),
      // and every row before that turn is where and as it was.
      const last = await turns.askAndWait();
      client.close();
      await runtime.kill();
      runtime = await runtime.restart();
      client = await runtime.connect();
      const expired = (await client.call('approvals.list', { sessionId })).approvals.find(
        (a) => a.id === last.approvalId,
      );
      expect(expired).toMatchObject({ decision: null, expired: EXPIRED_BY_RESTART });
      const restarted = await waitForRows(client, sessionId, allSettled, 180_000);
      const lastAt = restarted.findIndex((r) => r.kind === 'message' && r.runId === last.runId);
      expect(rowLines(restarted.slice(0, lastAt)), seeded('the rows after a SIGKILL and a restart')).toEqual(
        rowLines(saved),
      );
      expect(messageState(restarted, last.runId), context).toMatch(/failed|cancelled/);
      for (const limit of sizes)
        expect(
          rowLines(await pagedRows(client, sessionId, limit)),
          seeded(`pages of ${limit} after the restart`),
        ).toEqual(rowLines(restarted));
      expect(
        rowLines(await pagedRows(client, sessionId, 5, spawn.itemId)),
        seeded('the subagent timeline after the restart'),
      ).toEqual(rowLines(child));

      // And the same once more after a clean restart: what the crash left is stable.
      client.close();
      runtime = await runtime.restart();
      client = await runtime.connect();
      expect(
        rowLines((await client.call('sessions.timeline', { sessionId })).rows),
        seeded('the rows after a second restart'),
      ).toEqual(rowLines(restarted));
    },
    AGENT_TEST_TIMEOUT_MS * 3,
  );
});
