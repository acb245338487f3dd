import type { Logger } from '../log';
import { KILLED_WAIT_MS, recentProcessGroups, sendToGroup, waitUntilGone } from './groupSignals';
import type { ProcessGroupLedger, RecordedProcessGroup } from './processGroupLedger';
import {
  currentBootId,
  liveMembersOf,
  liveMembersOfSession,
  readProcStat,
  scanLiveProcessGroups,
  type ProcStat,
} from './procStat';
import { PROCESS_TAG_VARIABLE, stopTagged } from './taggedProcesses';

/** What start-up found of the groups a dead runtime left. */
export interface SurvivorReport {
  /** Groups found alive and stopped. */
  stopped: RecordedProcessGroup[];
}

/**
 * Whether a recorded group still lives: a leader of that number with another start time means
 * the number was reused (a group's number is never reused while it has members), so nothing of
 * ours is left; otherwise any member started no earlier than the leader is ours, even after the
 * leader died.
 */
function stillRunning(
  group: RecordedProcessGroup,
  bootId: string | null,
  groups: ReturnType<typeof scanLiveProcessGroups>,
): boolean {
  if (group.bootId !== bootId) return false;
  const leader = readProcStat(group.pgid);
  if (leader && leader.startTicks !== group.startTicks) return false;
  return membersOf(group, groups).length > 0;
}

/** A terminal's row names its session (TERM-5): its jobs run in groups of their own. */
function membersOf(group: RecordedProcessGroup, groups: Map<number, ProcStat[]>): ProcStat[] {
  return group.purpose === 'terminal'
    ? liveMembersOfSession(groups, group.pgid, group.startTicks)
    : liveMembersOf(groups, group.pgid, group.startTicks);
}

/** SIGTERM to a command's group; a terminal is hung up (SIGHUP to each of its groups: an interactive shell ignores SIGTERM). */
function signalSurvivor(
  group: RecordedProcessGroup,
  signal: 'first' | 'SIGKILL',
  groups: Map<number, ProcStat[]>,
): void {
  if (group.purpose !== 'terminal') {
    sendToGroup(group.pgid, signal === 'first' ? 'SIGTERM' : 'SIGKILL');
    return;
  }
  for (const pgrp of new Set(membersOf(group, groups).map((member) => member.pgrp)))
    sendToGroup(pgrp, signal === 'first' ? 'SIGHUP' : 'SIGKILL');
}

/**
 * Start-up, before any row is marked (SES-5, TERM-5): every group the dead runtime recorded and that still
 * runs gets SIGTERM, then SIGKILL when the grace ends. A group of an earlier boot is simply
 * forgotten. Where /proc is missing nothing can be proven ours, so nothing is signalled.
 */
export async function stopSurvivingGroups(
  ledger: ProcessGroupLedger,
  graceMs: number,
  log: Logger,
): Promise<SurvivorReport> {
  const recorded = ledger.recorded();
  if (recorded.length === 0) return { stopped: [] };
  const bootId = currentBootId();
  const groups = scanLiveProcessGroups();
  const survivors = recorded.filter((group) => stillRunning(group, bootId, groups));
  for (const group of survivors) signalSurvivor(group, 'first', groups);
  const signalledAt = performance.now();
  const anyAlive = () => survivors.some((group) => stillRunning(group, bootId, recentProcessGroups(signalledAt)));
  if (survivors.length > 0 && !(await waitUntilGone(anyAlive, graceMs))) {
    for (const group of survivors) {
      const now = recentProcessGroups(signalledAt);
      if (stillRunning(group, bootId, now)) signalSurvivor(group, 'SIGKILL', now);
    }
    await waitUntilGone(anyAlive, KILLED_WAIT_MS);
  }
  // SES-9: what an agent host started outside its group (a Bash command's own session) carries its tag.
  let tagged = 0;
  for (const group of recorded)
    if (group.envTag && group.bootId === bootId)
      tagged += await stopTagged(PROCESS_TAG_VARIABLE, group.envTag, graceMs);
  for (const group of recorded) ledger.forget(group);
  if (tagged > 0) log.warn('stopped processes an agent host left', { processes: tagged });
  if (survivors.length > 0)
    log.warn('stopped process groups that outlived the previous runtime', { groups: survivors.length });
  return { stopped: survivors };
}
