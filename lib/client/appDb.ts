import { openDB, type DBSchema, type IDBPDatabase } from 'idb';

/** The app's one IndexedDB database, typed (STYLE: idb). */
export interface AppDbSchema extends DBSchema {
  /** This device's pairing: one record under the key "device". */
  settings: {
    key: string;
    value: { token: string; deviceId: string; deviceName: string; pairedAt: number };
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
      }
    },
  });
  return opening;
}

export type DevicePairing = AppDbSchema['settings']['value'];

export async function loadPairing(): Promise<DevicePairing | undefined> {
  return (await appDb()).get('settings', 'device');
}

export async function savePairing(pairing: DevicePairing): Promise<void> {
  await (await appDb()).put('settings', pairing, 'device');
}

export async function forgetPairing(): Promise<void> {
  await (await appDb()).delete('settings', 'device');
}
