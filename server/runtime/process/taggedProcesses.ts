import fs from 'node:fs';
import { waitUntilGone } from './groupSignals';
import { hasProcFs, readProcStat } from './procStat';

/**
 * Processes found by a variable in their environment (SES-9). A tool of an agent may start its
 * commands in new sessions and groups (Claude Code's Bash does, and its jobs get groups of their
 * own), so its group says nothing about them; the environment each inherited from the agent's
 * host does, whoever their parent is now. A process that clears its environment is not found.
 */
/** The variable an agent host and everything it starts carry: its tag, or a run's under it. */
export const PROCESS_TAG_VARIABLE = 'HBCODE_PROCESS_TAG';

export interface TaggedProcess {
  pid: number;
  startTicks: number;
}

/** True when `value` is `tag` or a tag under it (`tag/…`). */
export function isUnderTag(value: string, tag: string): boolean {
  return value === tag || value.startsWith(`${tag}/`);
}

function tagOf(pid: number, variable: string): string | null {
  try {
    const prefix = `${variable}=`;
    for (const entry of fs.readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0'))
      if (entry.startsWith(prefix)) return entry.slice(prefix.length);
  } catch {
    // Gone meanwhile, or not ours to read.
  }
  return null;
}

/** Live processes whose `variable` is `tag` or under it, but never this process. One pass over /proc. */
export function processesTagged(variable: string, tag: string): TaggedProcess[] {
  if (!hasProcFs || tag === '') return [];
  const found: TaggedProcess[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isSafeInteger(pid) || pid <= 0 || pid === process.pid) continue;
    const value = tagOf(pid, variable);
    if (value === null || !isUnderTag(value, tag)) continue;
    const stat = readProcStat(pid);
    if (stat && stat.state !== 'Z') found.push({ pid, startTicks: stat.startTicks });
  }
  return found;
}

/** Whether the process still is the one found: same number, same start time, not a zombie. */
function stillThere(process: TaggedProcess): boolean {
  const stat = readProcStat(process.pid);
  return stat !== null && stat.state !== 'Z' && stat.startTicks === process.startTicks;
}

function signal(found: TaggedProcess[], name: NodeJS.Signals): void {
  for (const one of found) {
    if (!stillThere(one)) continue;
    try {
      process.kill(one.pid, name);
    } catch {
      // Gone meanwhile.
    }
  }
}

/**
 * Stops every process tagged `tag` or under it: SIGTERM, then SIGKILL to those still there after
 * `graceMs`; looks again after that for any started meanwhile. Resolves with how many it found.
 */
export async function stopTagged(variable: string, tag: string, graceMs: number): Promise<number> {
  let total = 0;
  for (let pass = 0; pass < 3; pass++) {
    const found = processesTagged(variable, tag);
    if (found.length === 0) break;
    total += found.length;
    signal(found, 'SIGTERM');
    if (!(await waitUntilGone(() => found.some(stillThere), graceMs))) {
      signal(found, 'SIGKILL');
      await waitUntilGone(() => found.some(stillThere), graceMs);
    }
  }
  return total;
}
