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
  return layered(files, [{ regex, message }]);
}

/**
 * Several boundaries over the same files. NOTE: ESLint does not merge a rule's options across
 * config objects (the last one that matches a file wins), so a folder inside a bounded folder
 * repeats the outer folder's patterns here.
 */
function layered(files, patterns) {
  return { files, rules: { 'no-restricted-imports': ['error', { patterns }] } };
}

/** The desktop runtime never reaches into the app or into the relay node (lib/relay, shared by both, is fine). */
const SERVER = {
  regex:
    '(^|/)(app|components|workers|public|lib/client|lib/serviceWorker|lib/highlight|tests|bench|(?<!lib/)relay)(/|$)',
  message:
    'server/ may import only server/, scripts/ and the shared lib/ modules (lib/protocol, lib/relay, lib/nodeHttp, lib/markdown, lib/terminal, lib/links, lib/shared): never relay/.',
};

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
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/ban-ts-comment': 'error',
    },
  },
  {
    // Plain Node scripts: tsc does not check them, so undefined names must be caught here.
    files: ['**/*.{js,mjs}'],
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        Buffer: 'readonly',
        URL: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
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

  // Two Node programs, each with its own entry: the desktop runtime (server/main.ts) and the relay
  // node (relay/main.ts). Neither imports the other; what both need lives in lib/relay (the wire
  // between them) and lib/nodeHttp (HTTP limits and the connection governor).
  // The runtime never reaches into the app (no page, component, worker or service-worker code) nor the relay.
  layered(['server/**'], [SERVER]),
  // The runtime's core (sessions, output, agents, files) knows nothing of how it is reached: the
  // RPC methods, the HTTP server and the relay link sit on top of it and hand it what it needs.
  layered(
    ['server/runtime/**'],
    [
      SERVER,
      {
        regex: '^\\.{1,2}/(\\.\\./)*(rpc|http|relayLink)(/|$)',
        message: 'server/runtime is the core: it may not import server/rpc, server/http or server/relayLink.',
      },
    ],
  ),
  // The relay node: only itself and the shared wire and HTTP pieces, never the runtime.
  boundary(
    ['relay/**'],
    '^(?!\\./|\\.\\./lib/(relay|nodeHttp|protocol|shared)/)\\.',
    'relay/ may import only relay/, lib/relay, lib/nodeHttp, lib/protocol and lib/shared.',
  ),
  // What the runtime and the relay share: the link's frames and names, data only beside lib/protocol.
  boundary(['lib/relay/**'], '^\\.\\./(?!(relay|protocol)/)', 'lib/relay may import only itself and lib/protocol.'),
  boundary(['lib/nodeHttp/**'], '^\\.\\./', 'lib/nodeHttp imports nothing of ours outside lib/nodeHttp.'),

  // Pages and components run in the browser: never the runtime, and never test or bench code.
  boundary(
    ['app/**'],
    '(^|/)(server|(?<!lib/)relay|tests|bench|scripts|workers)(/|$)',
    'app/ composes components and lib/client only.',
  ),
  boundary(
    ['components/**'],
    '(^|/)(server|(?<!lib/)relay|tests|bench|scripts|workers|app)(/|$)',
    'components/ may import components/, lib/client and pure lib/ modules only.',
  ),
  boundary(
    ['lib/client/**'],
    '(^|/)(server|tests|bench|scripts|workers|app|components)(/|$)',
    'lib/client sits below the components: it may import lib/ only.',
  ),

  // Workers are thin shells around pure lib/ modules that run in any realm.
  boundary(
    ['workers/**'],
    '^(?!\\.\\./lib/(markdown|highlight|protocol|shared)/)\\.',
    'workers/ may import only lib/markdown, lib/highlight, lib/protocol and lib/shared.',
  ),

  // Pure modules shared by the page, workers and Node: no client, no runtime.
  boundary(
    ['lib/markdown/**', 'lib/highlight/**'],
    '^\\.\\./(?!(markdown|highlight|protocol|shared)/)',
    'lib/markdown and lib/highlight may import only each other, lib/protocol and lib/shared.',
  ),

  // Terminal rendering and search run in the page and, for find on the desktop (PWA-2), in the runtime.
  boundary(
    ['lib/terminal/**'],
    '^\\.\\./(?!(terminal|links|shared)/)',
    'lib/terminal may import only itself, lib/links and lib/shared.',
  ),
  boundary(['lib/links/**'], '^\\.', 'lib/links imports nothing of ours.'),

  // One utility per job, importable from every realm (a buffer pool, a backoff, JSON checked by a
  // schema, integer flags): no DOM, no Node globals (tsconfig.worker.json checks it too), nothing of ours.
  boundary(['lib/shared/**'], '^\\.\\./', 'lib/shared imports nothing of ours outside lib/shared.'),

  // The service worker may load only what a service worker can run: no DOM, no React, no client state.
  boundary(
    ['public/sw.ts'],
    '^(?!\\.\\./lib/(serviceWorker|protocol|shared)/)\\.',
    'public/sw.ts may import only lib/serviceWorker, lib/protocol and lib/shared.',
  ),
  boundary(
    ['lib/serviceWorker/**'],
    '^(?!\\./|\\.\\./protocol/|\\.\\./shared/|\\.\\./client/preview/portInbox$)\\.',
    'lib/serviceWorker may import only lib/protocol, lib/shared and the DOM-free lib/client/preview/portInbox.',
  ),
);
