import fs from 'node:fs';
import path from 'node:path';
import { OWNER_ONLY_FILE_MODE } from './ownerOnly';

/** Whether a process with this id exists (signal 0 probes without delivering anything). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * One runtime per data folder: two writers would each run recovery against the other's
 * in-flight appends and cut committed bytes. A lock left by a dead process is taken over.
 */
export function acquireDataLock(dataDir: string): () => void {
  const file = path.join(dataDir, 'runtime.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      fs.writeFileSync(file, String(process.pid), { flag: 'wx', mode: OWNER_ONLY_FILE_MODE });
      return () => {
        try {
          if (fs.readFileSync(file, 'utf8') === String(process.pid)) fs.rmSync(file);
        } catch {
          // Already gone.
        }
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const owner = Number(fs.readFileSync(file, 'utf8'));
      if (Number.isInteger(owner) && owner > 0 && owner !== process.pid && processAlive(owner)) {
        throw new Error(`Another runtime (process ${owner}) is using the data folder ${dataDir}.`);
      }
      fs.rmSync(file, { force: true });
    }
  }
  throw new Error(`Could not lock the data folder ${dataDir}.`);
}
