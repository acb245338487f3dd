import { openDB, type DBSchema, type IDBPDatabase } from 'idb';
import type { MessageState, Session, TimelineRow } from '../protocol/rows';

/** State of an unsent message on this device (PWA-4). */
export type OutboxState = 'queued' | 'sending' | 'sent' | 'failed';

/** The app's one IndexedDB database, typed (STYLE: idb). */
export interface AppDbSchema extends DBSchema {
  /** This device's pairing: one record under the key "device". */
  settings: {
    key: string;
    value: { token: string; deviceId: string; deviceName: string; pairedAt: number };
  };
  /** Messages typed on this device until the runtime confirms them (PWA-4, STO-2). */
  outbox: {
    key: string; // operationId
    value: {
      operationId: string;
      sessionId: string;
      text: string;
      createdAt: number;
      /** Position in the session's send order. */
      seq: number;
      state: OutboxState;
      attempts: number;
      error?: string;
      runId?: string;
      runState?: MessageState;
    };
    indexes: { bySession: [string, number] };
  };
  /** Output pages once read, for reading again offline (PWA-3). Key: source|generation|offset. */
  outputPages: {
    key: string;
    value: { key: string; source: string; generation: number; offset: number; bytes: ArrayBuffer; byteLength: number; lastUsed: number };
    indexes: { byLastUsed: number; bySource: string };
  };
  /** Session lists and timelines as last seen (PWA-3). */
  snapshots: {
    key: string; // "sessions" | `timeline:${sessionId}`
    value: { key: string; sessions?: Session[]; rows?: TimelineRow[]; savedAt: number };
  };
}

export const APP_DB_NAME = 'hbcode';
const APP_DB_VERSION = 1;

let opening: Promise<IDBPDatabase<AppDbSchema>> | null = null;

export function appDb(): Promise<IDBPDatabase<AppDbSchema>> {
  opening ??= openDB<AppDbSchema>(APP_DB_NAME, APP_DB_VERSION, {
    upgrade(db, oldVersion) {
      if (oldVersion < 1) {
        db.createObjectStore('settings');
        db.createObjectStore('outbox', { keyPath: 'operationId' }).createIndex('bySession', ['sessionId', 'seq']);
        const pages = db.createObjectStore('outputPages', { keyPath: 'key' });
        pages.createIndex('byLastUsed', 'lastUsed');
        pages.createIndex('bySource', 'source');
        db.createObjectStore('snapshots', { keyPath: 'key' });
      }
    },
  });
  return opening;
}

export type DevicePairing = AppDbSchema['settings']['value'];
export type OutboxEntry = AppDbSchema['outbox']['value'];

export async function loadPairing(): Promise<DevicePairing | undefined> {
  return (await appDb()).get('settings', 'device');
}

export async function savePairing(pairing: DevicePairing): Promise<void> {
  await (await appDb()).put('settings', pairing, 'device');
}

export async function forgetPairing(): Promise<void> {
  await (await appDb()).delete('settings', 'device');
}
