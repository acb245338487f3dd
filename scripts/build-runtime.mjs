// Builds the desktop runtime, the relay node and the runtime's own child programs (the Claude
// agent host) into dist/ with esbuild (scripts/runtime-programs.mjs lists them): one ES module
// per program, run with plain `node`, so a start no longer compiles TypeScript through tsx.
// Native modules stay outside the bundle (loaded from node_modules), and so do the agents'
// packages (the host loads the Agent SDK from its own folder at run time). Source maps are on:
// run with `node --enable-source-maps` and stacks name the .ts files.
// With --if-stale it does nothing when no source the last build read changed since.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { BUNDLE_FOLDER, RUNTIME_PROGRAMS } from './runtime-programs.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** Packages with native code (or optional native helpers) that a bundle cannot hold. */
const NATIVE = ['better-sqlite3', 'bufferutil', 'utf-8-validate', 'node-pty', 'sharp'];
/** Besides the sources a build reads, a change of these makes it stale. */
const ALWAYS_INPUTS = ['package-lock.json', 'scripts/build-runtime.mjs', 'scripts/runtime-programs.mjs'];
const LOADERS = { '.ts': 'ts', '.tsx': 'tsx', '.mts': 'ts', '.js': 'js', '.mjs': 'js', '.cjs': 'js' };

/**
 * `import.meta.url` keeps meaning the source file's own address (paths.ts finds the repository
 * from it, install-agents.mjs its lock): each use becomes that file's address relative to the
 * bundle's, so dist/ works wherever the checkout is.
 */
function sourceUrls(outdir) {
  return {
    name: 'source-import-meta-url',
    setup(b) {
      b.onLoad({ filter: /\.[cm]?[jt]sx?$/ }, (args) => {
        const loader = LOADERS[path.extname(args.path)];
        if (!loader) return undefined;
        const text = fs.readFileSync(args.path, 'utf8');
        if (!text.includes('import.meta.url')) return undefined;
        const relative = path.relative(outdir, args.path).split(path.sep).join('/');
        return {
          contents: text.replaceAll('import.meta.url', `new URL(${JSON.stringify(relative)}, import.meta.url).href`),
          loader,
        };
      });
    },
  };
}

function stampOf(outdir) {
  return path.join(outdir, '.bundle-stamp.json');
}

/** True unless the stamp names these entries and every input it lists is older than that build's start. */
function isStale(entries, outdir) {
  let stamp;
  try {
    stamp = JSON.parse(fs.readFileSync(stampOf(outdir), 'utf8'));
  } catch {
    return true;
  }
  if (stamp.key !== keyOf(entries)) return true;
  if (!Object.keys(entries).every((name) => fs.existsSync(path.join(outdir, `${name}.mjs`)))) return true;
  return stamp.inputs.some((input) => {
    try {
      return fs.statSync(path.join(root, input)).mtimeMs > stamp.startedAt;
    } catch {
      return true;
    }
  });
}

function keyOf(entries) {
  return crypto.createHash('sha256').update(JSON.stringify(entries)).digest('hex').slice(0, 16);
}

/** Writes a file whole or not at all: a test or a start reading the bundle meanwhile sees the old one. */
function writeAtomically(file, contents) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temporary, contents);
  fs.renameSync(temporary, file);
}

/**
 * Bundles each entry (`{ NAME: source relative to the root }`) into `outdir/NAME.mjs` with its
 * source map; with `ifStale`, only when a source changed. Returns whether it built.
 */
export async function buildBundle(entries, { outdir = path.join(root, BUNDLE_FOLDER), ifStale = false } = {}) {
  if (ifStale && !isStale(entries, outdir)) return false;
  // A source saved while the build runs is newer than this, so the next check rebuilds.
  const startedAt = Date.now();
  const result = await build({
    absWorkingDir: root,
    entryPoints: Object.fromEntries(Object.entries(entries).map(([name, source]) => [name, path.join(root, source)])),
    outdir,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    sourcemap: true,
    metafile: true,
    write: false,
    external: NATIVE,
    // Bundled CommonJS packages call `require` for Node's own modules; an ES module has none.
    banner: {
      js: "import { createRequire as __bundleRequire } from 'node:module';\nconst require = __bundleRequire(import.meta.url);",
    },
    // childProgram.ts starts the bundled child programs when the runtime itself runs from here.
    define: { __HBCODE_BUNDLE__: 'true' },
    plugins: [sourceUrls(outdir)],
    logLevel: 'warning',
  });
  for (const file of result.outputFiles) writeAtomically(file.path, file.contents);
  const inputs = [...new Set([...Object.keys(result.metafile.inputs), ...ALWAYS_INPUTS])].sort();
  writeAtomically(stampOf(outdir), JSON.stringify({ key: keyOf(entries), startedAt, inputs }));
  return true;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const started = Date.now();
  if (await buildBundle(RUNTIME_PROGRAMS, { ifStale: process.argv.includes('--if-stale') })) {
    console.log(
      `runtime bundle built in ${BUNDLE_FOLDER}/: ${Object.keys(RUNTIME_PROGRAMS).join(', ')} (${Date.now() - started} ms)`,
    );
  }
}
