import { openDB, type DBSchema, type IDBPDatabase, type IDBPTransaction, type StoreNames } from 'idb';
import type { FileEntry } from '../protocol/files';
import type { Project, Session, TimelineRow } from '../protocol/rows';
import type { OutboxRecord } from './outboxRules';
import type { OutboxAttachment } from './attachments/outboxAttachment';
import type { ChunkHeader } from './verifiedChunks';
import { checkedRecord, PairingRecordSchema } from './storage/recordSchemas';
import type { ReaderPageRecord } from './readerPageRecord';
import type { TimelinePageRecord } from './timeline/timelinePageRecord';

/** The app's one IndexedDB database, typed (STYLE: idb). */
export interface AppDbSchema extends DBSchema {
  /**
   * This device's pairing: one record under the key "device"; under "pendingSignOut", a pairing
   * signed out while offline, whose revocation is sent on the next connection (DEV-1).
   */
  settings: {
    key: string;
    value: { token: string; deviceId: string; deviceName: string; pairedAt: number };
  };
  /** Messages typed on this device until the runtime confirms them (PWA-4, STO-2). */
  outbox: {
    key: string; // operationId
    /** The rules' record (lib/client/outboxRules.ts) plus the message itself, with its files (ATT-1). */
    /** `mode: 'steer'`: the message goes to the running turn instead of after it (ACC-6). */
    value: OutboxRecord & { text: string; mode?: 'steer'; attachments?: OutboxAttachment[] };
    indexes: { bySession: [string, number] };
  };
  /** Output pages once read, for reading again offline (PWA-3). Key: source|generation|offset. */
  outputPages: {
    key: string;
    value: {
      key: string;
      source: string;
      generation: number;
      offset: number;
      bytes: ArrayBuffer;
      byteLength: number;
      lastUsed: number;
    };
    indexes: { byLastUsed: number; bySource: string };
  };
  /** Session lists and timelines as last seen (PWA-3). */
  snapshots: {
    key: string; // "sessions" | `timeline:${sessionId}` | `folder:${JSON.stringify([projectDirectory, path])}`
    value: {
      key: string;
      projects?: Project[];
      sessions?: Session[];
      rows?: TimelineRow[];
      entries?: FileEntry[];
      savedAt: number;
    };
  };
  /**
   * Running totals of bounded caches (key "outputPages": the bytes held in `outputPages`), kept in
   * the same transaction as every put and delete so eviction never has to read every page (PWA-3).
   */
  cacheUsage: {
    key: string;
    value: { key: string; bytes: number };
  };
  /** Verified file chunks (FILE-2) for reading again offline (PWA-3); total under cacheUsage "fileChunks". */
  fileChunks: {
    key: [string, string, string, number]; // projectDirectory, path, contentVersion, offset
    value: {
      projectDirectory: string;
      path: string;
      contentVersion: string;
      offset: number;
      header: ChunkHeader;
      bytes: ArrayBuffer;
      lastUsed: number;
    };
    indexes: { byLastUsed: number; byFile: [string, string] };
  };
  /** Web pages converted to Markdown, for reading again offline (MD-1, PWA-3). Key: the address asked for. */
  readerPages: {
    key: string;
    value: ReaderPageRecord;
    indexes: { byLastUsed: number };
  };
  /** Timeline pages once read, for reading again offline (TL-4); total under cacheUsage "timelinePages". */
  timelinePages: {
    key: string;
    value: TimelinePageRecord;
    indexes: { byLastUsed: number; bySession: string };
  };
}

const APP_DB_NAME = 'hbcode';
const APP_DB_VERSION = 5;

let opening: Promise<IDBPDatabase<AppDbSchema>> | null = null;

function appDb(): Promise<IDBPDatabase<AppDbSchema>> {
  opening ??= openDB<AppDbSchema>(APP_DB_NAME, APP_DB_VERSION, {
    upgrade(db, oldVersion, _newVersion, transaction) {
      if (oldVersion < 1) {
        db.createObjectStore('settings');
        db.createObjectStore('outbox', { keyPath: 'operationId' }).createIndex('bySession', ['sessionId', 'seq']);
        const pages = db.createObjectStore('outputPages', { keyPath: 'key' });
        pages.createIndex('byLastUsed', 'lastUsed');
        pages.createIndex('bySource', 'source');
        db.createObjectStore('snapshots', { keyPath: 'key' });
      }
      if (oldVersion < 2) {
        db.createObjectStore('cacheUsage', { keyPath: 'key' });
        // Version 1 kept no total: start the page cache empty so the total is exact.
        if (oldVersion >= 1) void transaction.objectStore('outputPages').clear();
      }
      if (oldVersion < 3) {
        const chunks = db.createObjectStore('fileChunks', {
          keyPath: ['projectDirectory', 'path', 'contentVersion', 'offset'],
        });
        chunks.createIndex('byLastUsed', 'lastUsed');
        chunks.createIndex('byFile', ['projectDirectory', 'path']);
      }
      if (oldVersion < 4) {
        db.createObjectStore('readerPages', { keyPath: 'url' }).createIndex('byLastUsed', 'lastUsed');
      }
      if (oldVersion < 5) {
        const pages = db.createObjectStore('timelinePages', { keyPath: 'key' });
        pages.createIndex('byLastUsed', 'lastUsed');
        pages.createIndex('bySession', 'sessionId');
      }
    },
    // Another tab wants a newer version: let it upgrade, and reopen on the next use.
    blocking() {
      void opening?.then((db) => db.close());
      opening = null;
    },
  });
  return opening;
}

export type DevicePairing = AppDbSchema['settings']['value'];
export type OutboxEntry = AppDbSchema['outbox']['value'];

export async function loadPairing(): Promise<DevicePairing | undefined> {
  return checkedRecord('settings', PairingRecordSchema, await (await appDb()).get('settings', 'device')) ?? undefined;
}

export async function savePairing(pairing: DevicePairing): Promise<void> {
  await (await appDb()).put('settings', pairing, 'device');
}

export async function forgetPairing(): Promise<void> {
  await (await appDb()).delete('settings', 'device');
}

/** Signed out while the runtime could not be told: forgotten as this device's pairing, kept to revoke (DEV-1). */
export async function queueSignOut(pairing: DevicePairing): Promise<void> {
  const db = await appDb();
  const tx = db.transaction('settings', 'readwrite');
  await Promise.all([tx.store.put(pairing, 'pendingSignOut'), tx.store.delete('device'), tx.done]);
}

export async function loadPendingSignOut(): Promise<DevicePairing | undefined> {
  return (
    checkedRecord('settings', PairingRecordSchema, await (await appDb()).get('settings', 'pendingSignOut')) ?? undefined
  );
}

export async function forgetPendingSignOut(): Promise<void> {
  await (await appDb()).delete('settings', 'pendingSignOut');
}

/**
 * Runs `work` in one transaction and resolves after it commits. `work` may await only requests of
 * this transaction: awaiting anything else lets the transaction commit early (STYLE: IndexedDB).
 * A throw aborts the transaction, so nothing of it is kept.
 */
export async function withTransaction<
  const Stores extends readonly StoreNames<AppDbSchema>[],
  Mode extends IDBTransactionMode,
  T,
>(stores: Stores, mode: Mode, work: (tx: IDBPTransaction<AppDbSchema, Stores, Mode>) => Promise<T>): Promise<T> {
  const tx = (await appDb()).transaction(stores, mode);
  try {
    const result = await work(tx);
    await tx.done;
    return result;
  } catch (error) {
    try {
      tx.abort();
    } catch {
      // Already committed or aborted.
    }
    await tx.done.catch(() => undefined);
    throw error;
  }
}
