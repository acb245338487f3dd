import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { REPO_ROOT } from '../../server/runtime/paths';

const liveChildren = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of liveChildren) child.kill('SIGKILL');
});

/**
 * Starts `bench/lib/<script>` under tsx and resolves once it printed `READY <port>`; the child is
 * killed when the bench exits, however it exits. `ipc` opens the channel the child answers usage on.
 */
export async function spawnBenchChild(
  script: string,
  args: string[],
  options: { ipc?: boolean } = {},
): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(REPO_ROOT, 'bench', 'lib', script), ...args], {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'pipe', 'inherit', ...(options.ipc ? (['ipc'] as const) : [])],
  });
  liveChildren.add(child);
  child.once('exit', () => liveChildren.delete(child));
  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const match = /READY (\d+)/.exec(out);
      if (match) resolve(Number(match[1]));
    });
    child.once('exit', (code) => reject(new Error(`${script} ${args[0] ?? ''} exited ${code}`)));
  });
  return { child, port };
}
