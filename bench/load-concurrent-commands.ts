/**
 * Many sessions running short commands at once must not stall the runtime: 200 shell sessions
 * each run 10 short commands through the real runtime over the WebSocket while a second socket
 * samples a cheap call (`projects.list`) throughout. The same cheap call on the idle runtime, in
 * the same run, is the reference; the runtime's own event-loop delay comes from its debug log
 * (HBCODE_DEBUG_EVENT_LOOP_LOG). Target: the cheap call's p95 under load stays under 100 ms.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { RpcClient } from '../lib/client/rpcClient';
import type { EventLoopDelaySample } from '../server/eventLoopDelayLog';
import { startRuntimeProcess, type RuntimeProcess } from '../tests/fixtures/runtimeProcess';
import { makeTempDir } from './lib/tempDirs';
import type { Benchmark, BenchOutcome, Comparison } from './lib/report';
import { median, now, percentile } from './lib/rounds';

const SESSIONS = Number(process.env.HBCODE_BENCH_SESSIONS ?? 200);
const COMMANDS_PER_SESSION = 10;
const IDLE_SAMPLES = 200;
/** Pause between two samples of the cheap call, so the probe itself is no load. */
const SAMPLE_GAP_MS = 10;
const P95_BUDGET_MS = 100;
const LOAD_TIMEOUT_MS = 10 * 60_000;

interface LatencySummary {
  samples: number;
  p50Ms: number;
  p95Ms: number;
  maxMs: number;
}

const summarize = (samples: number[]): LatencySummary => ({
  samples: samples.length,
  p50Ms: median(samples),
  p95Ms: percentile(samples, 0.95),
  maxMs: Math.max(...samples),
});

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Samples `projects.list` until `until` says stop (or `count` samples are taken). */
async function sampleCheapCall(probe: RpcClient, until: () => boolean, count = Infinity): Promise<number[]> {
  const samples: number[] = [];
  while (samples.length < count && !until()) {
    const started = now();
    await probe.call('projects.list');
    samples.push(now() - started);
    await pause(SAMPLE_GAP_MS);
  }
  return samples;
}

function eventLoopDelayBetween(
  file: string,
  from: number,
  to: number,
): { intervals: number; maxMs: number; worstP99Ms: number; meanP50Ms: number } {
  const samples = fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as EventLoopDelaySample)
    .filter((s) => s.at >= from && s.at <= to + 250);
  if (samples.length === 0) return { intervals: 0, maxMs: 0, worstP99Ms: 0, meanP50Ms: 0 };
  return {
    intervals: samples.length,
    maxMs: Math.max(...samples.map((s) => s.maxMs)),
    worstP99Ms: Math.max(...samples.map((s) => s.p99Ms)),
    meanP50Ms: Number((samples.reduce((sum, s) => sum + s.p50Ms, 0) / samples.length).toFixed(3)),
  };
}

async function createSessions(client: RpcClient, count: number): Promise<string[]> {
  const { projects } = await client.call('projects.list');
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const { session } = await client.call('sessions.create', { projectId: projects[0]!.id, agent: 'shell' });
    ids.push(session.id);
  }
  return ids;
}

export const loadConcurrentCommands: Benchmark = {
  name: 'load-concurrent-commands',
  async run(progress): Promise<BenchOutcome> {
    const delayLog = path.join(makeTempDir('hbcode-bench-eventloop-'), 'event-loop.jsonl');
    let runtime: RuntimeProcess | undefined;
    const clients: RpcClient[] = [];
    try {
      runtime = await startRuntimeProcess({ env: { HBCODE_DEBUG_EVENT_LOOP_LOG: delayLog } });
      const load = await runtime.connect();
      const probe = await runtime.connect();
      clients.push(load, probe);
      progress(`creating ${SESSIONS} shell sessions`);
      const sessionIds = await createSessions(load, SESSIONS);

      progress(`idle: ${IDLE_SAMPLES} samples of projects.list`);
      const idleFrom = Date.now();
      const idle = await sampleCheapCall(probe, () => false, IDLE_SAMPLES);
      const idleTo = Date.now();

      const total = SESSIONS * COMMANDS_PER_SESSION;
      const finished = new Set<string>();
      let failed = 0;
      load.onNotification('timeline.row', (params) => {
        const row = params.row;
        if (row.kind !== 'command' || row.status === 'running' || !row.complete || finished.has(row.runId)) return;
        finished.add(row.runId);
        if (row.status !== 'exited' || row.exitCode !== 0) failed += 1;
      });

      progress(`load: ${SESSIONS} sessions × ${COMMANDS_PER_SESSION} commands`);
      const loadFrom = Date.now();
      const started = now();
      const sends = sessionIds.map(async (sessionId, s) => {
        for (let c = 0; c < COMMANDS_PER_SESSION; c++) {
          await load.call('chat.send', { sessionId, operationId: crypto.randomUUID(), text: `echo s${s}-c${c}` });
        }
      });
      let loadDone = false;
      const sampling = sampleCheapCall(probe, () => loadDone);
      await Promise.all(sends);
      const deadline = Date.now() + LOAD_TIMEOUT_MS;
      while (finished.size < total) {
        if (Date.now() > deadline) throw new Error(`only ${finished.size} of ${total} commands finished`);
        await pause(20);
      }
      const loadSeconds = (now() - started) / 1000;
      loadDone = true;
      const underLoad = await sampling;
      const loadTo = Date.now();
      if (failed > 0) throw new Error(`${failed} commands did not exit 0`);

      for (const client of clients.splice(0)) client.close();
      await runtime.stop();
      runtime = undefined;

      const idleSummary = summarize(idle);
      const loadSummary = summarize(underLoad);
      const idleLoop = eventLoopDelayBetween(delayLog, idleFrom, idleTo);
      const loadLoop = eventLoopDelayBetween(delayLog, loadFrom, loadTo);
      progress(
        `  idle projects.list p50 ${idleSummary.p50Ms.toFixed(2)} ms, p95 ${idleSummary.p95Ms.toFixed(2)} ms, max ${idleSummary.maxMs.toFixed(2)} ms`,
      );
      progress(
        `  load projects.list p50 ${loadSummary.p50Ms.toFixed(2)} ms, p95 ${loadSummary.p95Ms.toFixed(2)} ms, max ${loadSummary.maxMs.toFixed(2)} ms (${loadSummary.samples} samples)`,
      );
      progress(
        `  load: ${total} commands in ${loadSeconds.toFixed(1)} s; event-loop delay max ${loadLoop.maxMs} ms, worst p99 ${loadLoop.worstP99Ms} ms (idle max ${idleLoop.maxMs} ms)`,
      );

      const line = (
        label: string,
        ours: number,
        reference: number,
        referenceName: string,
        target: number | null,
      ): Comparison => ({
        rule: 'PERF-8',
        label,
        unit: 'ms',
        better: 'lower',
        oursName: 'under load',
        referenceName,
        ours,
        reference,
        target,
      });
      return {
        comparisons: [
          line(
            'projects.list p95 during 200 sessions × 10 commands vs the 100 ms budget',
            loadSummary.p95Ms,
            P95_BUDGET_MS,
            'budget',
            1,
          ),
          line('projects.list p95 under load vs idle', loadSummary.p95Ms, idleSummary.p95Ms, 'idle', null),
          line(
            'event-loop delay max under load vs idle',
            loadLoop.maxMs,
            Math.max(idleLoop.maxMs, 0.001),
            'idle',
            null,
          ),
        ],
        parameters: {
          sessions: SESSIONS,
          commandsPerSession: COMMANDS_PER_SESSION,
          idleSamples: IDLE_SAMPLES,
          sampleGapMs: SAMPLE_GAP_MS,
          command: 'echo s<session>-c<command>',
        },
        measurements: {
          idle: idleSummary,
          underLoad: loadSummary,
          loadSeconds,
          commandsPerSecond: total / loadSeconds,
          eventLoopDelay: { idle: idleLoop, underLoad: loadLoop },
        },
        notes: [
          'One socket sends the messages (each session sends its 10 one after another) and receives the rows; a second socket samples projects.list with 10 ms gaps.',
          'Event-loop delay is the runtime’s own monitorEventLoopDelay, logged every 250 ms.',
        ],
      };
    } finally {
      for (const client of clients) client.close();
      await runtime?.stop();
    }
  },
};
