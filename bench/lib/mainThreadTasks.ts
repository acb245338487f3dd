import type { Page } from 'playwright-core';
import { z } from 'zod';

/** The fields of a trace event read here; other events and fields are ignored. */
const TraceEventSchema = z.object({
  name: z.string(),
  ph: z.string(),
  pid: z.number(),
  tid: z.number(),
  ts: z.number().optional(),
  dur: z.number().optional(),
  tdur: z.number().optional(),
  args: z.object({ name: z.unknown().optional() }).optional(),
});
type TraceEvent = z.infer<typeof TraceEventSchema>;

export interface MainThreadTasks {
  /** Tasks on the page's main thread during `work`. */
  count: number;
  /** The longest task by wall-clock time, and the thread CPU time it used. */
  longestWallMs: number;
  longestWallCpuMs: number;
  /** The most thread CPU time any one task used: its own work, without waiting for a CPU. */
  longestCpuMs: number;
  /** Tasks over 50 ms of wall time, and those that used over 50 ms of thread CPU time. */
  overBudgetWall: number;
  overBudgetCpu: number;
  /** What ran inside the tasks over 50 ms of CPU: the events nested in each, longest first (name and ms of wall time). */
  overBudgetCpuInside: { cpuMs: number; inside: { name: string; ms: number }[] }[];
}

/** A long task, as the Long Tasks API counts them. */
const BUDGET_US = 50_000;

/**
 * The page's main-thread tasks while `work` runs, from a Chromium trace (toplevel task events
 * carry both wall and thread CPU time). On a shared machine a task's wall time includes time
 * its thread waited for a CPU; its CPU time does not, so the two together tell the task's own
 * cost from the machine's load.
 */
export async function traceMainThreadTasks(page: Page, work: () => Promise<void>): Promise<MainThreadTasks> {
  const cdp = await page.context().newCDPSession(page);
  const events: TraceEvent[] = [];
  cdp.on('Tracing.dataCollected', (data) => {
    for (const value of data.value) {
      const parsed = TraceEventSchema.safeParse(value);
      if (parsed.success) events.push(parsed.data);
    }
  });
  const complete = new Promise<void>((resolve) => cdp.once('Tracing.tracingComplete', () => resolve()));
  await cdp.send('Tracing.start', {
    categories: 'disabled-by-default-devtools.timeline',
    transferMode: 'ReportEvents',
  });
  try {
    await work();
  } finally {
    await cdp.send('Tracing.end');
    await complete;
    await cdp.detach();
  }
  const mainThreads = new Set(
    events
      .filter((e) => e.ph === 'M' && e.name === 'thread_name' && e.args?.name === 'CrRendererMain')
      .map((e) => `${e.pid}:${e.tid}`),
  );
  const tasksByThread = new Map<string, TraceEvent[]>();
  for (const e of events) {
    const thread = `${e.pid}:${e.tid}`;
    if (e.name !== 'RunTask' || e.ph !== 'X' || !mainThreads.has(thread)) continue;
    const tasks = tasksByThread.get(thread) ?? [];
    tasks.push(e);
    tasksByThread.set(thread, tasks);
  }
  // The page's renderer is the busiest one (a service worker's renderer, if any, runs a few tasks).
  const tasks = [...tasksByThread.values()].sort((a, b) => b.length - a.length)[0] ?? [];
  const longestWall = tasks.reduce<TraceEvent | undefined>(
    (top, t) => (!top || (t.dur ?? 0) > (top.dur ?? 0) ? t : top),
    undefined,
  );
  return {
    count: tasks.length,
    longestWallMs: (longestWall?.dur ?? 0) / 1000,
    longestWallCpuMs: (longestWall?.tdur ?? 0) / 1000,
    longestCpuMs: tasks.reduce((top, t) => Math.max(top, t.tdur ?? 0), 0) / 1000,
    overBudgetWall: tasks.filter((t) => (t.dur ?? 0) > BUDGET_US).length,
    overBudgetCpu: tasks.filter((t) => (t.tdur ?? 0) > BUDGET_US).length,
    overBudgetCpuInside: tasks
      .filter((t) => (t.tdur ?? 0) > BUDGET_US)
      .map((task) => ({ cpuMs: (task.tdur ?? 0) / 1000, inside: nestedEvents(events, task) })),
  };
}

/** The longest events on a task's thread within its span (its JavaScript calls, GC, layout, paint). */
function nestedEvents(events: TraceEvent[], task: TraceEvent): { name: string; ms: number }[] {
  const start = task.ts ?? 0;
  const end = start + (task.dur ?? 0);
  return events
    .filter(
      (e) =>
        e !== task &&
        e.ph === 'X' &&
        e.pid === task.pid &&
        e.tid === task.tid &&
        (e.ts ?? -1) >= start &&
        (e.ts ?? 0) + (e.dur ?? 0) <= end,
    )
    .sort((a, b) => (b.dur ?? 0) - (a.dur ?? 0))
    .slice(0, 8)
    .map((e) => ({ name: e.name, ms: (e.dur ?? 0) / 1000 }));
}
