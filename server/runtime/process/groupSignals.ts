import { scanLiveProcessGroups, type ProcStat } from './procStat';

/** After SIGKILL a group normally vanishes at once; this bounds the wait for one stuck in the kernel. */
export const KILLED_WAIT_MS = 5000;
const FIRST_POLL_MS = 10;
const MAX_POLL_MS = 200;
/** Groups being stopped at the same time share one pass over /proc per this interval. */
const SCAN_REUSE_MS = 20;

let lastScan: { at: number; groups: Map<number, ProcStat[]> } | null = null;

/**
 * The live processes by group, from a pass over /proc at most SCAN_REUSE_MS old and begun no
 * earlier than `notBefore`. A group whose leader has exited can only lose members, so a pass
 * begun after that exit that finds none proves the group gone; an older pass proves nothing.
 */
export function recentProcessGroups(notBefore = 0): Map<number, ProcStat[]> {
  const at = performance.now();
  if (!lastScan || at - lastScan.at > SCAN_REUSE_MS || lastScan.at < notBefore)
    lastScan = { at, groups: scanLiveProcessGroups() };
  return lastScan.groups;
}

export function sendToGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    // ESRCH: nothing left in the group; EPERM: the number now belongs to someone else's group.
    return false;
  }
}

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Polls with a growing interval until `isAlive` says no; false if `ms` passed first. */
export async function waitUntilGone(isAlive: () => boolean, ms: number): Promise<boolean> {
  const deadline = performance.now() + ms;
  for (let interval = FIRST_POLL_MS; isAlive(); interval = Math.min(interval * 2, MAX_POLL_MS)) {
    const left = deadline - performance.now();
    if (left <= 0) return false;
    await pause(Math.min(interval, left));
  }
  return true;
}
