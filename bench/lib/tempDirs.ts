import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const created = new Set<string>();

/** A fresh folder under os.tmpdir(), removed by `removeTempDir` or, at the latest, `removeAllTempDirs`. */
export function makeTempDir(prefix: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  created.add(dir);
  return dir;
}

export function removeTempDir(dir: string): void {
  fs.rmSync(dir, { recursive: true, force: true });
  created.delete(dir);
}

/** Called when a run ends or is interrupted, so no gigabyte-sized file is left behind. */
export function removeAllTempDirs(): void {
  for (const dir of created) removeTempDir(dir);
}
