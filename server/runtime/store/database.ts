import fs from 'node:fs';
import Database from 'better-sqlite3';
import { OWNER_ONLY_FILE_MODE } from './ownerOnly';
import { applyMigrations } from './migrate';

export type Db = Database.Database;

/**
 * Opens the runtime's SQLite store (STO-1): WAL so readers never wait on the output writer,
 * synchronous=NORMAL because every commit that matters for output is re-checked by recovery
 * (OUT-2) and a crash of this process never loses a committed WAL frame.
 */
export function openDatabase(file: string, migrationsDir: string): Db {
  // SQLite would create the file 0644; made here first, it is owner-only, and SQLite gives the
  // -wal and -shm files the database file's mode (SEC-8).
  fs.closeSync(fs.openSync(file, 'a', OWNER_ONLY_FILE_MODE));
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  applyMigrations(db, migrationsDir);
  return db;
}
