import fs from 'node:fs';

/**
 * What Linux's /proc says about processes: enough to tell a process group's members from
 * unrelated processes that happen to reuse a number. Elsewhere every function answers null or
 * empty and callers fall back to signals alone.
 */

export interface ProcStat {
  pid: number;
  /** R, S, D, Z, T…; a zombie (Z) has exited and only waits to be reaped. */
  state: string;
  pgrp: number;
  /** Field 6: the session (a terminal's processes share its shell's, whatever their groups). */
  session: number;
  /** Field 22: clock ticks after boot when the process started; with the pid, a unique name until reboot. */
  startTicks: number;
}

export const hasProcFs = process.platform === 'linux' && fs.existsSync('/proc/self/stat');

/** Parses /proc/<pid>/stat. The command name may contain spaces and parentheses: fields start after the last ')'. */
export function parseProcStat(pid: number, text: string): ProcStat | null {
  const close = text.lastIndexOf(')');
  if (close < 0) return null;
  const fields = text.slice(close + 2).split(' ');
  // fields[0] is field 3 (state), so field N is fields[N - 3].
  const state = fields[0];
  const pgrp = Number(fields[2]);
  const session = Number(fields[3]);
  const startTicks = Number(fields[19]);
  if (!state || !Number.isSafeInteger(pgrp) || !Number.isSafeInteger(session) || !Number.isSafeInteger(startTicks))
    return null;
  return { pid, state, pgrp, session, startTicks };
}

export function readProcStat(pid: number): ProcStat | null {
  if (!hasProcFs) return null;
  try {
    return parseProcStat(pid, fs.readFileSync(`/proc/${pid}/stat`, 'latin1'));
  } catch {
    return null;
  }
}

let cachedBootId: string | null | undefined;

/** Changes at every boot, so start ticks recorded before a reboot are never compared with new ones. */
export function currentBootId(): string | null {
  if (cachedBootId === undefined) {
    try {
      cachedBootId = hasProcFs ? fs.readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim() : null;
    } catch {
      cachedBootId = null;
    }
  }
  return cachedBootId;
}

/** Every process that has not exited, by process group. One pass over /proc. */
export function scanLiveProcessGroups(): Map<number, ProcStat[]> {
  const groups = new Map<number, ProcStat[]>();
  if (!hasProcFs) return groups;
  for (const entry of fs.readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isSafeInteger(pid) || pid <= 0) continue;
    const stat = readProcStat(pid);
    if (!stat || stat.state === 'Z') continue;
    const members = groups.get(stat.pgrp);
    if (members) members.push(stat);
    else groups.set(stat.pgrp, [stat]);
  }
  return groups;
}

/**
 * The live members of group `pgid` that started no earlier than its leader. A group can outlive
 * its leader, and every member of it was started after the leader: a process that started
 * before cannot be one of ours, whatever its group number says.
 */
export function liveMembersOf(groups: Map<number, ProcStat[]>, pgid: number, leaderStartTicks: number): ProcStat[] {
  return (groups.get(pgid) ?? []).filter((member) => member.startTicks >= leaderStartTicks);
}

/**
 * The live members of session `sid` (a terminal's shell and every job it started in its own
 * group) that started no earlier than the session's leader (TERM-5).
 */
export function liveMembersOfSession(
  groups: Map<number, ProcStat[]>,
  sid: number,
  leaderStartTicks: number,
): ProcStat[] {
  const members: ProcStat[] = [];
  for (const group of groups.values())
    for (const member of group)
      if (member.session === sid && member.startTicks >= leaderStartTicks) members.push(member);
  return members;
}
