import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { REPO_ROOT } from '../../server/runtime/paths';

/** Where the reference build is exported, beside the real app (ignored by git). */
const REFERENCE_OUT = 'out-reference';

function buildApp(env: NodeJS.ProcessEnv): void {
  execFileSync(process.execPath, [path.join(REPO_ROOT, 'scripts', 'build-app.mjs'), '--if-stale'], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

/**
 * UX-5's reference: the same app with every view bundled into the first screen
 * (HBCODE_APP_SPLITTING=off swaps the lazy views for eager imports); returns its folder. The real
 * app in out/ is brought up to date too, after, since both builds share Next's build folder.
 */
export function buildReferenceApp(): string {
  buildApp({ HBCODE_APP_SPLITTING: 'off', HBCODE_APP_OUT: REFERENCE_OUT });
  buildApp({});
  return path.join(REPO_ROOT, REFERENCE_OUT);
}
