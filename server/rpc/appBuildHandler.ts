import fs from 'node:fs';
import path from 'node:path';
import { BuildInfoSchema } from '../../lib/protocol/buildDigest';
import type { MethodResult } from '../../lib/protocol/methods';
import { unavailable } from '../runtime/errors';
import { REPO_ROOT } from '../runtime/paths';

/** Where the build (scripts/build-app.mjs) leaves its digest, next to the files the runtime serves. */
export const BUILD_INFO_FILE = path.join(REPO_ROOT, 'out', '.build.json');

/**
 * `app.build` (RLY-5): the digest of the app build this desktop serves from its own checkout.
 * Read once, when the runtime starts: the files it serves were listed then too.
 */
export function createAppBuildHandler(file = BUILD_INFO_FILE) {
  let digest: string | null = null;
  try {
    digest = BuildInfoSchema.parse(JSON.parse(fs.readFileSync(file, 'utf8'))).digest;
  } catch {
    digest = null;
  }
  return {
    'app.build'(): MethodResult<'app.build'> {
      if (!digest)
        throw unavailable('This desktop has no built app. Build it with npm run build, then restart the runtime.');
      return { digest };
    },
  };
}
