// Builds the web app for the runtime to serve: the Next.js static export into out/, then the
// service worker (public/sw.ts) bundled into out/sw.js with the precache manifest of every file.
// With --if-stale it does nothing when out/ is newer than every source of the app.
import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const out = path.join(root, 'out');
const stamp = path.join(out, '.build-stamp');
const SOURCES = ['app', 'components', 'lib', 'public', 'workers', 'next.config.mjs', 'package-lock.json', 'scripts/build-app.mjs'];

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

// Web Workers (workers/*.worker.ts → out/workers/*.worker.js) are bundled here, not by Next. NOTE:
// a worker script served from the service worker's precache runs at the cached response's URL,
// which drops the query string Turbopack's worker bootstrap reads its chunk list from.
const workerEntries = fs.existsSync(path.join(root, 'workers')) ? fs.readdirSync(path.join(root, 'workers')).filter((name) => name.endsWith('.worker.ts')) : [];
if (workerEntries.length > 0) {
  await build({
    entryPoints: workerEntries.map((name) => path.join(root, 'workers', name)),
    outdir: path.join(out, 'workers'),
    bundle: true,
    platform: 'browser',
    format: 'iife',
    target: 'es2022',
    minify: true,
    define: { 'process.env.NODE_ENV': '"production"' },
    logLevel: 'warning',
  });
}

function listFiles(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? listFiles(full) : [full];
  });
}
const manifest = listFiles(out)
  .map((file) => path.relative(out, file).split(path.sep).join('/'))
  .filter((rel) => rel !== 'sw.js' && !rel.startsWith('.') && !rel.endsWith('.txt') && !rel.endsWith('.map'))
  .sort()
  .map((rel) => ({ url: '/' + rel, revision: crypto.createHash('sha256').update(fs.readFileSync(path.join(out, rel))).digest('hex').slice(0, 16) }));

await build({
  entryPoints: [path.join(root, 'public', 'sw.ts')],
  outfile: path.join(out, 'sw.js'),
  bundle: true,
  format: 'iife',
  target: 'es2022',
  minify: true,
  define: { 'self.__WB_MANIFEST': JSON.stringify(manifest), 'process.env.NODE_ENV': '"production"' },
  logLevel: 'warning',
});
fs.writeFileSync(stamp, new Date().toISOString());
console.log(`app built: ${manifest.length} files precached`);
