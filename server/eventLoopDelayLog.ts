import fs from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';

/** One line of the log: the event loop's delay over the interval that ended at `at`. */
export interface EventLoopDelaySample {
  at: number;
  meanMs: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

const INTERVAL_MS = 250;
const nanosToMs = (nanos: number) => Number((nanos / 1e6).toFixed(3));

/**
 * A debug aid for the load benchmark (PERF): with HBCODE_DEBUG_EVENT_LOOP_LOG set, the runtime
 * appends one JSON line per 250 ms with the event loop's delay over that interval, so a benchmark
 * can see stalls from outside. Off unless asked for; nothing of the protocol changes.
 */
export function startEventLoopDelayLog(file: string | undefined): () => void {
  if (!file) return () => undefined;
  const histogram = monitorEventLoopDelay({ resolution: 10 });
  histogram.enable();
  const write = () => {
    const sample: EventLoopDelaySample = {
      at: Date.now(),
      meanMs: nanosToMs(histogram.mean),
      p50Ms: nanosToMs(histogram.percentile(50)),
      p99Ms: nanosToMs(histogram.percentile(99)),
      maxMs: nanosToMs(histogram.max),
    };
    histogram.reset();
    fs.appendFileSync(file, JSON.stringify(sample) + '\n');
  };
  const timer = setInterval(write, INTERVAL_MS);
  timer.unref();
  return () => {
    clearInterval(timer);
    write();
    histogram.disable();
  };
}
