// Builds the web app for the runtime to serve: the Next.js static export into out/, then the
// service worker (public/sw.ts) bundled into out/sw.js with the precache manifest of the shell and
// the list of the app's other files (cached on first use), and the preview host page's script
// into out/.preview-host.js.
// With --if-stale it does nothing when out/ is newer than every source of the app.
import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
// HBCODE_APP_OUT: another export folder (the bench's reference build), relative to the root.
const out = path.join(root, process.env.HBCODE_APP_OUT ?? 'out');
const stamp = path.join(out, '.build-stamp');
const SOURCES = [
  'app',
  'components',
  'lib',
  'public',
  'workers',
  'next.config.mjs',
  'package-lock.json',
  'scripts/build-app.mjs',
];

function newestMtime(entry) {
  const full = path.join(root, entry);
  if (!fs.existsSync(full)) return 0;
  const stat = fs.statSync(full);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return fs.readdirSync(full).reduce((max, name) => Math.max(max, newestMtime(path.join(entry, name))), stat.mtimeMs);
}

if (process.argv.includes('--if-stale') && fs.existsSync(stamp)) {
  const built = fs.statSync(stamp).mtimeMs;
  if (SOURCES.every((s) => newestMtime(s) <= built)) process.exit(0);
}

const next = spawnSync(process.execPath, [path.join(root, 'node_modules', 'next', 'dist', 'bin', 'next'), 'build'], {
  cwd: root,
  stdio: 'inherit',
  env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1' },
});
if (next.status !== 0) process.exit(next.status ?? 1);

// public/ is copied verbatim by Next; the worker's source is not a file to serve.
fs.rmSync(path.join(out, 'sw.ts'), { force: true });

// Web Workers (workers/*.worker.ts) are bundled here rather than by Next: each is an ES module
// with its lazily loaded parts (grammars) split into chunks, at a stable address the app names
// (`/workers/NAME.js`), cached by the service worker on first use so workers run offline too.
const workerEntries = fs.existsSync(path.join(root, 'workers'))
  ? fs
      .readdirSync(path.join(root, 'workers'))
      .filter((name) => name.endsWith('.worker.ts'))
      .map((name) => path.join(root, 'workers', name))
  : [];
if (workerEntries.length > 0) {
  await build({
    entryPoints: workerEntries,
    outdir: path.join(out, 'workers'),
    entryNames: '[name]',
    chunkNames: 'chunks/[name]-[hash]',
    bundle: true,
    splitting: true,
    format: 'esm',
    target: 'es2022',
    minify: true,
    define: { 'process.env.NODE_ENV': '"production"' },
    logLevel: 'warning',
  });
}

/** A TypeScript module of the app, bundled by esbuild and imported, so the build shares its code. */
async function importTypeScript(file) {
  const bundled = await build({
    entryPoints: [file],
    bundle: true,
    format: 'esm',
    platform: 'node',
    write: false,
    logLevel: 'warning',
  });
  return import(`data:text/javascript;base64,${Buffer.from(bundled.outputFiles[0].text).toString('base64')}`);
}

function listFiles(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? listFiles(full) : [full];
  });
}
// RLY-5: every file the app serves but the worker itself, with its SHA-256: the worker checks each
// file it caches or serves against this list, so it only ever serves one build, whole.
const { buildDigest } = await importTypeScript(path.join(root, 'lib', 'protocol', 'buildDigest.ts'));
const buildFiles = Object.fromEntries(
  listFiles(out)
    .map((file) => path.relative(out, file).split(path.sep).join('/'))
    .filter((rel) => rel !== 'sw.js' && !rel.split('/').some((part) => part.startsWith('.')))
    .sort()
    .map((rel) => [
      '/' + rel,
      crypto
        .createHash('sha256')
        .update(fs.readFileSync(path.join(out, rel)))
        .digest('hex'),
    ]),
);
const digest = await buildDigest(buildFiles);
const manifest = Object.keys(buildFiles)
  // The manifest's screenshots are for the browser's install dialog only, never needed offline (PWA-1).
  .filter((url) => !url.endsWith('.txt') && !url.endsWith('.map') && !url.startsWith('/screenshots/'))
  .map((url) => ({ url }));

// The shell the service worker installs (UX-5, UX-7, PWA-1): the pages, the code and styles they name
// (the first screen), the manifest and icons. Every other file is cached when first used.
const pages = manifest.filter((entry) => entry.url.endsWith('.html'));
const shellUrls = new Set([...pages.map((entry) => entry.url), '/manifest.webmanifest']);
for (const entry of pages) {
  const html = fs.readFileSync(path.join(out, entry.url), 'utf8');
  for (const match of html.matchAll(/\/_next\/static\/[A-Za-z0-9_.~/-]+\.(?:js|css)/g)) shellUrls.add(match[0]);
  // Polyfills for browsers without modules: a browser that runs the app never fetches them.
  for (const match of html.matchAll(/<script src="([^"]+)" noModule=""/g)) shellUrls.delete(match[1]);
}
const isShell = (url) => shellUrls.has(url) || url.startsWith('/icons/') || url === '/favicon.ico';
const shell = manifest.filter((entry) => isShell(entry.url));
const lazyFiles = manifest.filter((entry) => !isShell(entry.url));
const bytesOf = (entries) => entries.reduce((sum, entry) => sum + fs.statSync(path.join(out, entry.url)).size, 0);

await build({
  entryPoints: [path.join(root, 'public', 'sw.ts')],
  outfile: path.join(out, 'sw.js'),
  bundle: true,
  format: 'iife',
  target: 'es2022',
  minify: true,
  // The worker makes its precache entries (with SRI integrity) and its lazy files from the list.
  define: {
    'self.__HBCODE_BUILD': JSON.stringify({
      files: buildFiles,
      shell: shell.map((entry) => entry.url),
      lazy: lazyFiles.map((entry) => entry.url),
    }),
    'process.env.NODE_ENV': '"production"',
  },
  logLevel: 'warning',
});
// The preview origin's host page script (PRV-5): the runtime inlines it into the host page. A dot
// name, so the app origin never serves it and the precache manifest leaves it out.
await build({
  entryPoints: [path.join(root, 'lib', 'client', 'preview', 'hostPage.ts')],
  outfile: path.join(out, '.preview-host.js'),
  bundle: true,
  format: 'iife',
  target: 'es2022',
  minify: true,
  logLevel: 'warning',
});
// Every text file the runtime serves is compressed once here, brotli at its best and gzip, so the
// runtime answers `Accept-Encoding` with no work per request (UX-5). Kept under a dot folder that
// the runtime never serves directly; a variant that is not smaller is not written.
const compressedRoot = path.join(out, '.compressed');
fs.rmSync(compressedRoot, { recursive: true, force: true });
const COMPRESSIBLE = new Set(['.html', '.js', '.mjs', '.css', '.json', '.webmanifest', '.svg', '.txt', '.ico', '.map']);
let compressedBytes = 0;
let plainBytes = 0;
for (const file of listFiles(out)) {
  const rel = path.relative(out, file).split(path.sep).join('/');
  if (rel.split('/').some((part) => part.startsWith('.')) || !COMPRESSIBLE.has(path.extname(rel))) continue;
  const body = fs.readFileSync(file);
  const variants = {
    br: zlib.brotliCompressSync(body, {
      params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: body.length },
    }),
    gz: zlib.gzipSync(body, { level: 9 }),
  };
  plainBytes += body.length;
  compressedBytes += Math.min(body.length, variants.br.length);
  for (const [suffix, bytes] of Object.entries(variants)) {
    if (bytes.length >= body.length) continue;
    const target = path.join(compressedRoot, `${rel}.${suffix}`);
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.writeFileSync(target, bytes);
  }
}
console.log(`compressed: ${plainBytes} bytes of text files to ${compressedBytes} with brotli`);
// What the worker installs and what it leaves for first use, for the UX-5 bench (a dot file: never served).
fs.writeFileSync(
  path.join(out, '.build-report.json'),
  JSON.stringify({
    shellFiles: shell.length,
    shellBytes: bytesOf(shell),
    lazyFiles: lazyFiles.length,
    lazyBytes: bytesOf(lazyFiles),
  }),
);
// What the runtime answers to `app.build` (RLY-5); a dot file, never served.
fs.writeFileSync(path.join(out, '.build.json'), JSON.stringify({ digest, files: buildFiles }));
fs.writeFileSync(stamp, new Date().toISOString());
console.log(
  `app built: digest ${digest}, ${shell.length} shell files precached (${bytesOf(shell)} bytes), ${lazyFiles.length} cached on first use (${bytesOf(lazyFiles)} bytes)`,
);
