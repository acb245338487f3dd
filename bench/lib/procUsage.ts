import fs from 'node:fs';

/** CPU time and resident memory of one process, read from /proc (Linux); null where unreadable. */
export interface ProcUsage {
  cpuSeconds: number;
  rssBytes: number;
  /** Minor page faults: fresh memory touched (tens of µs each in some VMs). */
  minorFaults: number;
}

/** Kernel clock ticks per second for /proc/PID/stat's utime and stime (USER_HZ, 100 on Linux). */
const CLOCK_TICKS = 100;

export function procUsage(pid: number): ProcUsage | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces: the fields after it start past its ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const utime = Number(fields[11]);
    const stime = Number(fields[12]);
    const rss = /^VmRSS:\s+(\d+) kB/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return {
      cpuSeconds: (utime + stime) / CLOCK_TICKS,
      rssBytes: rss ? Number(rss[1]) * 1024 : 0,
      minorFaults: Number(fields[7]),
    };
  } catch {
    return null;
  }
}

/** Several named processes: CPU seconds each spent between two snapshots, and their RSS at the second. */
export class ProcessMeter {
  constructor(private readonly pids: Record<string, number | null | undefined>) {}

  snapshot(): Record<string, ProcUsage | null> {
    return Object.fromEntries(Object.entries(this.pids).map(([name, pid]) => [name, pid ? procUsage(pid) : null]));
  }

  /** Runs `work` and tells what each process spent on it. */
  async measure<T>(work: () => Promise<T>): Promise<{
    value: T;
    cpuSeconds: Record<string, number | null>;
    minorFaults: Record<string, number | null>;
    rssMiB: Record<string, number | null>;
  }> {
    const before = this.snapshot();
    const value = await work();
    const after = this.snapshot();
    const cpuSeconds: Record<string, number | null> = {};
    const rssMiB: Record<string, number | null> = {};
    const minorFaults: Record<string, number | null> = {};
    for (const name of Object.keys(this.pids)) {
      const b = before[name];
      const a = after[name];
      cpuSeconds[name] = a && b ? Number((a.cpuSeconds - b.cpuSeconds).toFixed(2)) : null;
      minorFaults[name] = a && b ? a.minorFaults - b.minorFaults : null;
      rssMiB[name] = a ? Number((a.rssBytes / 1024 ** 2).toFixed(1)) : null;
    }
    return { value, cpuSeconds, minorFaults, rssMiB };
  }
}
