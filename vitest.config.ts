import { defineConfig } from 'vitest/config';

// Every project that starts a runtime, a relay or a host as a child builds their bundle first
// (once per run); the workers start the bundled Claude host even for a runtime in their own process.
const BUNDLE_SETUP = 'tests/fixtures/bundleSetup.ts';
const BUNDLE_ENV = { HBCODE_CHILD_BUNDLE: '1' };

export default defineConfig({
  test: {
    environment: 'node',
    pool: 'forks',
    testTimeout: 60_000,
    hookTimeout: 60_000,
    reporters: ['default'],
    projects: [
      { extends: true, test: { name: 'node', include: ['tests/unit/**/*.test.ts', 'tests/integration/**/*.test.ts'], globalSetup: [BUNDLE_SETUP], env: BUNDLE_ENV } },
      // The browser tests' global setup runs only when a browser test is about to run.
      {
        extends: true,
        test: { name: 'browser', include: ['tests/e2e/**/*.test.ts'], globalSetup: [BUNDLE_SETUP, 'tests/fixtures/chromiumSetup.ts'], env: BUNDLE_ENV },
      },
    ],
  },
});
