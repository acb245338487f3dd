import { afterEach, describe, expect, it } from 'vitest';
import { AgentRunError } from '../../../server/runtime/agents/agentRunError';
import { readProcStat } from '../../../server/runtime/process/procStat';
import { recordingContext, startClaudeAdapter, type ClaudeAdapterHarness } from '../../fixtures/claudeAdapter';
import { claudeTurnScript, type ClaudeStep } from '../../fixtures/fakeClaudeModel';
import { startFakeModelServer, type FakeModelServer } from '../../fixtures/fakeModelServer';
import { isLive } from '../../fixtures/processTree';
import { waitUntil } from '../../fixtures/waitUntil';

/**
 * SES-8: one long-lived Claude host answers the reads and runs of an account, real Claude Code
 * against the fake model: reads reuse it, it stops when idle, and a killed host fails what was
 * under way naming its exit while the next request gets a new host.
 */
describe('the long-lived Claude host', () => {
  let model: FakeModelServer | undefined;
  let harness: ClaudeAdapterHarness | undefined;
  const steps: ClaudeStep[] = [];

  afterEach(async () => {
    await harness?.agent.close();
    harness?.close();
    await model?.close();
  });

  async function start(hostIdleMs?: number): Promise<{ sessionId: string; harness: ClaudeAdapterHarness }> {
    model = await startFakeModelServer(claudeTurnScript(() => steps.shift() ?? { message: 'Nothing to run.' }));
    harness = startClaudeAdapter(model.url, hostIdleMs === undefined ? {} : { hostIdleMs });
    const { sessionId } = harness.newSession();
    return { sessionId, harness };
  }

  const readPage = (h: ClaudeAdapterHarness, sessionId: string) =>
    h.agent.historyPage({ sessionId, cwd: h.projectDir, parentItemId: null, before: null, after: null, limit: 50 });

  /** The one host running now, with its start time so a reused pid is not taken for it. */
  function onlyHost(h: ClaudeAdapterHarness): { pid: number; startTicks: number } {
    const hosts = h.agent.hosts.running();
    expect(hosts).toHaveLength(1);
    const pid = hosts[0]!.pid!;
    return { pid, startTicks: readProcStat(pid)!.startTicks };
  }

  it('a run and two history reads go to one host process', async () => {
    const { sessionId, harness: h } = await start();
    steps.push({ message: 'Hello from the fake model.' });
    await h.agent.run(recordingContext(h.sessions, { sessionId, text: 'Say hello', cwd: h.projectDir }));
    const afterRun = onlyHost(h);
    const first = await readPage(h, sessionId);
    const second = await readPage(h, sessionId);
    expect(first.entries.length).toBeGreaterThan(0);
    expect(second.entries).toEqual(first.entries);
    expect(onlyHost(h)).toEqual(afterRun);
    expect((await h.agent.models(null)).length).toBeGreaterThan(0);
    expect(onlyHost(h)).toEqual(afterRun);
  });

  it('an idle host stops, and the next read starts another', async () => {
    const { sessionId, harness: h } = await start(300);
    await readPage(h, sessionId);
    const first = onlyHost(h);
    await waitUntil(
      () => h.agent.hosts.running().length === 0 && !isLive(first.pid, first.startTicks),
      'the idle host has stopped',
    );
    await readPage(h, sessionId);
    const second = onlyHost(h);
    expect(second).not.toEqual(first);
  });

  it('a host killed under a turn fails it naming the kill; the next read gets a new host', async () => {
    const { sessionId, harness: h } = await start();
    steps.push({ hang: true });
    const context = recordingContext(h.sessions, { sessionId, text: 'Think for ever', cwd: h.projectDir });
    const turn = h.agent.run(context);
    await waitUntil(() => steps.length === 0, 'the turn waits on the model');
    const killed = onlyHost(h);
    process.kill(killed.pid, 'SIGKILL');
    const failure = await turn.then(
      () => null,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(AgentRunError);
    expect((failure as AgentRunError).message).toMatch(/^The Claude agent host was killed by SIGKILL/);
    expect(h.agent.hosts.failures.get('default')).toBe('The Claude agent host was killed by SIGKILL.');
    // The next request is answered, by a new host.
    expect(Array.isArray((await readPage(h, sessionId)).entries)).toBe(true);
    expect(onlyHost(h).pid).not.toBe(killed.pid);
  });
});
