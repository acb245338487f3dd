// ESLint flat config: the recommended JavaScript and TypeScript rules, and the import boundaries
// between realms (Node, page, worker, service worker) and layers that docs/architecture.md draws.
// Boundaries are `no-restricted-imports` regexes over the relative import path: every import of
// ours is relative, so a path that names a forbidden folder is a forbidden import.
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import reactHooks from 'eslint-plugin-react-hooks';
import tseslint from 'typescript-eslint';

/** One boundary: the files it governs, the relative imports they may not make, and why. */
function boundary(files, regex, message) {
  return { files, rules: { 'no-restricted-imports': ['error', { patterns: [{ regex, message }] }] } };
}

export default defineConfig(
  {
    ignores: [
      'node_modules/**',
      '.next/**',
      'out/**',
      'dist/**',
      'test-results/**',
      'next-env.d.ts',
      'bench/results/**',
      'scripts/agent-packages/**',
      'tests/fixtures/readability/**',
      'tests/fixtures/markdown-gfm/**',
      'tests/fixtures/highlight/**',
    ],
  },
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    files: ['**/*.{ts,tsx,js,mjs}'],
    languageOptions: { ecmaVersion: 2023, sourceType: 'module' },
    linterOptions: { reportUnusedDisableDirectives: 'error', noInlineConfig: true },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/ban-ts-comment': 'error',
    },
  },
  {
    // Plain Node scripts: tsc does not check them, so undefined names must be caught here.
    files: ['**/*.{js,mjs}'],
    languageOptions: {
      globals: {
        process: 'readonly', console: 'readonly', Buffer: 'readonly', URL: 'readonly',
        setTimeout: 'readonly', clearTimeout: 'readonly', setInterval: 'readonly', clearInterval: 'readonly',
      },
    },
  },
  {
    // Find in terminal output matches escape and C0 control characters on purpose (PWA-2).
    files: ['lib/terminal/renderedSearch.ts'],
    rules: { 'no-control-regex': 'off' },
  },
  {
    // Hooks called in the same order at every render; only components and pages call hooks.
    files: ['app/**/*.tsx', 'components/**/*.{ts,tsx}'],
    plugins: { 'react-hooks': reactHooks },
    rules: { 'react-hooks/rules-of-hooks': 'error' },
  },
  {
    // TypeScript checks names in .ts files itself (with the right lib per realm).
    files: ['**/*.{ts,tsx}'],
    rules: { 'no-undef': 'off' },
  },

  // lib/protocol is data only: zod schemas, the version, error codes. It imports nothing else of ours.
  boundary(['lib/protocol/**'], '^\\.\\./', 'lib/protocol imports nothing of ours outside lib/protocol.'),

  // The runtime never reaches into the app: no page, component, worker or service-worker code.
  boundary(
    ['server/**'],
    '(^|/)(app|components|workers|public|lib/client|lib/serviceWorker|lib/highlight|tests|bench)(/|$)',
    'server/ may import only server/, lib/protocol, lib/markdown, lib/terminal, lib/links, lib/shared and scripts/.',
  ),

  // Pages and components run in the browser: never the runtime, and never test or bench code.
  boundary(['app/**'], '(^|/)(server|tests|bench|scripts|workers)(/|$)', 'app/ composes components and lib/client only.'),
  boundary(
    ['components/**'],
    '(^|/)(server|tests|bench|scripts|workers|app)(/|$)',
    'components/ may import components/, lib/client and pure lib/ modules only.',
  ),
  boundary(
    ['lib/client/**'],
    '(^|/)(server|tests|bench|scripts|workers|app|components)(/|$)',
    'lib/client sits below the components: it may import lib/ only.',
  ),

  // Workers are thin shells around pure lib/ modules that run in any realm.
  boundary(['workers/**'], '^(?!\\.\\./lib/(markdown|highlight|protocol|shared)/)\\.', 'workers/ may import only lib/markdown, lib/highlight, lib/protocol and lib/shared.'),

  // Pure modules shared by the page, workers and Node: no client, no runtime.
  boundary(['lib/markdown/**', 'lib/highlight/**'], '^\\.\\./(?!(markdown|highlight|protocol|shared)/)', 'lib/markdown and lib/highlight may import only each other, lib/protocol and lib/shared.'),

  // Terminal rendering and search run in the page and, for find on the desktop (PWA-2), in the runtime.
  boundary(['lib/terminal/**'], '^\\.\\./(?!(terminal|links|shared)/)', 'lib/terminal may import only itself, lib/links and lib/shared.'),
  boundary(['lib/links/**'], '^\\.', 'lib/links imports nothing of ours.'),

  // One utility per job, importable from every realm (a buffer pool, a backoff, JSON checked by a
  // schema, integer flags): no DOM, no Node globals (tsconfig.worker.json checks it too), nothing of ours.
  boundary(['lib/shared/**'], '^\\.\\./', 'lib/shared imports nothing of ours outside lib/shared.'),

  // The service worker may load only what a service worker can run: no DOM, no React, no client state.
  boundary(['public/sw.ts'], '^(?!\\.\\./lib/(serviceWorker|protocol|shared)/)\\.', 'public/sw.ts may import only lib/serviceWorker, lib/protocol and lib/shared.'),
  boundary(
    ['lib/serviceWorker/**'],
    '^(?!\\./|\\.\\./protocol/|\\.\\./shared/|\\.\\./client/preview/portInbox$)\\.',
    'lib/serviceWorker may import only lib/protocol, lib/shared and the DOM-free lib/client/preview/portInbox.',
  ),
);
