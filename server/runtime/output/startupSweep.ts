import fs from 'node:fs';
import path from 'node:path';
import type { CommandOutputStore } from './commandOutputStore';
import { STAGE_FILE_SUFFIX } from './commandOutputStore';
import type { RecoveryOutcome } from './recoverArtifact';

/** A file that no catalog row names may belong to a command that is still being created. */
export const UNKNOWN_FILE_GRACE_MS = 60 * 60 * 1000;

export interface SweepReport {
  stageFilesRemoved: number;
  unknownFilesRemoved: number;
  recovered: Partial<Record<RecoveryOutcome, number>>;
}

/**
 * The start-up pass over `command-outputs/` (OUT-6): abandoned stage files go, every artifact is
 * recovered (OUT-2), and files no catalog row names are removed once older than an hour.
 */
export function sweepOutputFolder(store: CommandOutputStore, now = Date.now()): SweepReport {
  const report: SweepReport = { stageFilesRemoved: 0, unknownFilesRemoved: 0, recovered: {} };
  const entries = fs.readdirSync(store.dir, { withFileTypes: true });
  for (const entry of entries) {
    if (entry.isFile() && entry.name.endsWith(STAGE_FILE_SUFFIX)) {
      fs.rmSync(path.join(store.dir, entry.name), { force: true });
      report.stageFilesRemoved++;
    }
  }
  const known = new Set<string>();
  for (const row of store.catalog.all()) {
    known.add(row.fileName);
    const result = store.recover(row);
    if (result && result.outcome !== 'clean') {
      report.recovered[result.outcome] = (report.recovered[result.outcome] ?? 0) + 1;
    }
  }
  for (const entry of entries) {
    if (!entry.isFile() || entry.name.endsWith(STAGE_FILE_SUFFIX) || known.has(entry.name)) continue;
    const file = path.join(store.dir, entry.name);
    try {
      if (now - fs.statSync(file).mtimeMs > UNKNOWN_FILE_GRACE_MS) {
        fs.rmSync(file, { force: true });
        report.unknownFilesRemoved++;
      }
    } catch {
      // Gone already.
    }
  }
  return report;
}
