import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    environment: 'node',
    pool: 'forks',
    testTimeout: 60_000,
    hookTimeout: 60_000,
    reporters: ['default'],
    projects: [
      { extends: true, test: { name: 'node', include: ['tests/unit/**/*.test.ts', 'tests/integration/**/*.test.ts'] } },
      // The browser tests' global setup runs only when a browser test is about to run.
      { extends: true, test: { name: 'browser', include: ['tests/e2e/**/*.test.ts'], globalSetup: ['tests/fixtures/chromiumSetup.ts'] } },
    ],
  },
});
