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

interface ProcStat {
  /** `Z` for a zombie, `X` for a dead one (proc(5)). */
  state: string;
  /** When the process started, in clock ticks after boot: with the pid, it names one process. */
  startTime: string;
}

/** A process's state and start time from /proc; null where there is no /proc entry for it. */
function procStat(pid: number): ProcStat | null {
  let text: string;
  try {
    text = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  // The command name (field 2) is in parentheses and may hold spaces and ')'; the rest follows the last ')'.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const state = fields[0];
  const startTime = fields[19];
  return state && startTime ? { state, startTime } : null;
}

/** The lock's owner, as written: `pid` alone (older runtimes) or `pid start-time`. */
function parseOwner(text: string): { pid: number; startTime: string | null } | null {
  const [pid, startTime] = text.trim().split(' ');
  const owner = Number(pid);
  return Number.isInteger(owner) && owner > 0 ? { pid: owner, startTime: startTime ?? null } : null;
}

/**
 * Whether the lock's owner still runs. A pid probe alone is not proof of life: a killed runtime
 * whose parent has not reaped it is a zombie that answers the probe, and a reused pid belongs to
 * another process. Where /proc tells, the owner lives only if its entry is not a zombie and
 * started when the lock says.
 */
function ownerAlive(owner: { pid: number; startTime: string | null }): boolean {
  if (!processAlive(owner.pid)) return false;
  const stat = procStat(owner.pid);
  if (!stat) return !fs.existsSync('/proc/self/stat');
  if (stat.state === 'Z' || stat.state === 'X') return false;
  return owner.startTime === null || owner.startTime === stat.startTime;
}

/**
 * One runtime per data folder: two writers would each run recovery against the other's
 * in-flight appends and cut committed bytes. A lock left by a dead process (gone, a zombie, or
 * its pid now another process's) is taken over.
 */
export function acquireDataLock(dataDir: string): () => void {
  const file = path.join(dataDir, 'runtime.lock');
  const startTime = procStat(process.pid)?.startTime;
  const mine = startTime ? `${process.pid} ${startTime}` : String(process.pid);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      fs.writeFileSync(file, mine, { flag: 'wx', mode: OWNER_ONLY_FILE_MODE });
      return () => {
        try {
          if (fs.readFileSync(file, 'utf8') === mine) fs.rmSync(file);
        } catch {
          // Already gone.
        }
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const owner = parseOwner(fs.readFileSync(file, 'utf8'));
      if (owner && owner.pid !== process.pid && ownerAlive(owner)) {
        throw new Error(`Another runtime (process ${owner.pid}) is using the data folder ${dataDir}.`);
      }
      fs.rmSync(file, { force: true });
    }
  }
  throw new Error(`Could not lock the data folder ${dataDir}.`);
}
