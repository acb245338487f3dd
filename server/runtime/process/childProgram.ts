import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { BUNDLE_FOLDER, RUNTIME_PROGRAMS } from '../../../scripts/runtime-programs.mjs';
import { REPO_ROOT } from '../paths';

/** Defined (true) by scripts/build-runtime.mjs in the bundle; absent when running from source. */
declare const __HBCODE_BUNDLE__: boolean | undefined;

/** True in the bundle that `npm start` runs (dist/), false under the TypeScript loader. */
export const RUNNING_FROM_BUNDLE = typeof __HBCODE_BUNDLE__ !== 'undefined' && __HBCODE_BUNDLE__;

export type ChildProgramName = Exclude<keyof typeof RUNTIME_PROGRAMS, 'main' | 'relay'>;

export interface ChildProgramCommand {
  file: string;
  args: string[];
}

/**
 * How to start one of the runtime's own child programs (the Claude agent host): its bundled file
 * under plain `node` when the runtime runs from the bundle, or when HBCODE_CHILD_BUNDLE=1 says the
 * bundle is built and current (the tests' global setup builds it, then runs the runtime's modules
 * in-process); otherwise its TypeScript source under tsx.
 */
export function childProgram(name: ChildProgramName, env: NodeJS.ProcessEnv = process.env): ChildProgramCommand {
  if (RUNNING_FROM_BUNDLE || env.HBCODE_CHILD_BUNDLE === '1') {
    return {
      file: process.execPath,
      args: ['--enable-source-maps', path.join(REPO_ROOT, BUNDLE_FOLDER, `${name}.mjs`)],
    };
  }
  // The loader by its own address: a child an agent starts in a project folder (Codex starts MCP
  // servers there) would not find a bare `tsx` from there.
  const loader = pathToFileURL(createRequire(path.join(REPO_ROOT, 'package.json')).resolve('tsx')).href;
  return { file: process.execPath, args: ['--import', loader, path.join(REPO_ROOT, RUNTIME_PROGRAMS[name])] };
}
