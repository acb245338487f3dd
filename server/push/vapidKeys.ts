import fs from 'node:fs';
import path from 'node:path';
import webPush from 'web-push';
import { z } from 'zod';
import { OWNER_ONLY_FILE_MODE } from '../runtime/store/ownerOnly';

const VAPID_KEYS_FILE = 'vapid-keys.json';

const VapidKeysSchema = z.object({ publicKey: z.string().min(1), privateKey: z.string().min(1) });
export type VapidKeys = z.infer<typeof VapidKeysSchema>;

/**
 * The runtime's VAPID key pair, kept in the data folder (PUSH-1): a new pair would make every
 * push service refuse the subscriptions made with the old public key, so it is made once.
 */
export function loadOrCreateVapidKeys(dataDir: string): VapidKeys {
  const file = path.join(dataDir, VAPID_KEYS_FILE);
  if (fs.existsSync(file)) return VapidKeysSchema.parse(JSON.parse(fs.readFileSync(file, 'utf8')));
  const keys = webPush.generateVAPIDKeys();
  // `wx`: two runtimes cannot share a data folder (its lock), but never overwrite a pair anyway.
  fs.writeFileSync(file, JSON.stringify(keys), { mode: OWNER_ONLY_FILE_MODE, flag: 'wx' });
  return keys;
}
