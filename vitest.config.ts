import os from 'node:os';
import { configDefaults, defineConfig, type TestProjectInlineConfiguration } from 'vitest/config';
import LaneSequencer from './tests/fixtures/laneSequencer.ts';

// Every project that starts a runtime, a relay or a host as a child builds their bundle first
// (once per run); the workers start the bundled Claude host even for a runtime in their own process.
const BUNDLE_SETUP = 'tests/fixtures/bundleSetup.ts';
const BUNDLE_ENV = { HBCODE_CHILD_BUNDLE: '1' };

/** The machine's cores (two on the project's CI machine). */
const CORES = Math.max(2, os.availableParallelism());

/**
 * Workers of the lanes that start real processes (runtimes, relays, NATS, Chromium, the agents):
 * one file per core, as a file's children (its runtime, Chromium's renderers, an agent) use the
 * time it spends waiting. More files than cores made the longest browser tests overrun their
 * timeouts on a busy two-core machine. NOTE: vitest runs the projects of one
 * `sequence.groupOrder` in one pool and refuses different `maxWorkers` within it, so these lanes
 * share this count and one queue, longest file first (tests/fixtures/laneSequencer.ts): a slow
 * lane never holds a worker that another lane's file could use.
 */
const PROCESS_LANE_WORKERS = CORES;

/** A lane that starts real processes: forks, each file isolated, after the unit lane. */
function processLane(
  name: string,
  include: string[],
  options: { exclude?: string[]; globalSetup?: string[] } = {},
): TestProjectInlineConfiguration {
  return {
    extends: true,
    test: {
      name,
      include,
      exclude: [...configDefaults.exclude, ...(options.exclude ?? [])],
      globalSetup: [BUNDLE_SETUP, ...(options.globalSetup ?? [])],
      env: BUNDLE_ENV,
      pool: 'forks',
      maxWorkers: PROCESS_LANE_WORKERS,
      sequence: { groupOrder: 1 },
    },
  };
}

export default defineConfig({
  test: {
    environment: 'node',
    testTimeout: 60_000,
    hookTimeout: 60_000,
    reporters: ['default'],
    sequence: { sequencer: LaneSequencer },
    projects: [
      // Pure logic: one thread per core, modules loaded once per worker and shared by its files
      // (no isolation), first and on its own so its results come in within a minute or two.
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['tests/unit/**/*.test.ts'],
          globalSetup: [BUNDLE_SETUP],
          env: BUNDLE_ENV,
          pool: 'threads',
          isolate: false,
          maxWorkers: CORES,
          sequence: { groupOrder: 0 },
        },
      },
      processLane('integration', ['tests/integration/**/*.test.ts'], {
        exclude: ['tests/integration/agents/**', 'tests/integration/relay*/**'],
      }),
      // The real Codex and Claude Code against fake model servers.
      processLane('agents', ['tests/integration/agents/**/*.test.ts']),
      // Relay nodes, NATS and the runtime's link to them.
      processLane('relay', ['tests/integration/relay*/**/*.test.ts']),
      // Real Chromium: one browser server for the run (tests/fixtures/chromiumSetup.ts), which
      // runs only when a browser test is about to run; each file connects to it.
      processLane('browser', ['tests/e2e/**/*.test.ts'], { globalSetup: ['tests/fixtures/chromiumSetup.ts'] }),
      // The core flows at phone size in real WebKit (WebKitGTK under Xvfb) and real Firefox ESR
      // (tests/fixtures/engines.ts): one browser and one runtime per file.
      processLane('webkit', ['tests/engines/webkit.test.ts']),
      processLane('firefox', ['tests/engines/firefox.test.ts']),
    ],
  },
});
