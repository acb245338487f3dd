import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ATTACHMENT_CHUNK_BYTES } from '../../../../lib/protocol/attachments';
import { Attachments } from '../../../../server/runtime/attachments/attachments';
import { SecretFiles } from '../../../../server/runtime/files/secretFiles';
import { UploadCatalog } from '../../../../server/runtime/attachments/uploadCatalog';
import { RuntimeError } from '../../../../server/runtime/errors';
import { MIGRATIONS_DIR } from '../../../../server/runtime/paths';
import { openDatabase, type Db } from '../../../../server/runtime/store/database';
import { mountSmallDisk, type SmallDisk } from '../../../fixtures/smallDisk';
import { makeTempDir } from '../../../fixtures/tempDir';

const MIB = 1024 * 1024;
const HOUR = 60 * 60 * 1000;

/** A database with one project and one session to upload into. */
function storeWithSession(dir: string): { db: Db; sessionId: string } {
  const db = openDatabase(path.join(dir, 'hbcode.db'), MIGRATIONS_DIR);
  const sessionId = crypto.randomUUID();
  db.prepare('INSERT INTO projects (id, name, directory, created_at) VALUES (?, ?, ?, 0)').run('p1', 'project', dir);
  db.prepare(
    "INSERT INTO sessions (id, project_id, agent, title, created_at) VALUES (?, 'p1', 'shell', 'uploads', 0)",
  ).run(sessionId);
  return { db, sessionId };
}

const fileOf = (sessionId: string, name: string, byteLength: number) => ({
  sessionId,
  name,
  mimeType: 'application/octet-stream',
  byteLength,
  sha256: crypto.createHash('sha256').update(name).digest('hex'),
});

/** The refusal `begin` threw, with its stable code and data. */
function refusalOf(begin: () => unknown): RuntimeError {
  try {
    begin();
  } catch (error) {
    expect(error).toBeInstanceOf(RuntimeError);
    return error as RuntimeError;
  }
  throw new Error('the upload was accepted');
}

describe('ATT-3 attachment quotas and expiry', () => {
  it('ATT-3 a device past its quota is refused with the numbers while another device still has room; the total quota binds them all', () => {
    const dir = makeTempDir('hbcode-quota-');
    const { db, sessionId } = storeWithSession(dir);
    const attachments = new Attachments(new UploadCatalog(db), path.join(dir, 'pasted-images'), new SecretFiles(), {
      quota: { perDeviceBytes: 20 * MIB, totalBytes: 30 * MIB, headroomBytes: 0 },
    });
    attachments.begin(fileOf(sessionId, 'a1', 8 * MIB), 'phone');
    attachments.begin(fileOf(sessionId, 'a2', 8 * MIB), 'phone');
    const device = refusalOf(() => attachments.begin(fileOf(sessionId, 'a3', 8 * MIB), 'phone'));
    expect(device.code).toBe('storage');
    expect(device.data).toMatchObject({
      reason: 'device_quota',
      askedBytes: 8 * MIB,
      usedBytes: 16 * MIB,
      limitBytes: 20 * MIB,
    });
    expect(device.message).toContain('16,777,216 bytes kept of 20,971,520 bytes, 8,388,608 bytes asked');
    // The same file again is its earlier upload, to resume: no new room is asked for.
    expect(attachments.begin(fileOf(sessionId, 'a1', 8 * MIB), 'phone').confirmedOffset).toBe(0);

    attachments.begin(fileOf(sessionId, 'b1', 12 * MIB), 'laptop');
    const total = refusalOf(() => attachments.begin(fileOf(sessionId, 'b2', 2 * MIB + 1), 'laptop'));
    expect(total.data).toMatchObject({
      reason: 'total_quota',
      askedBytes: 2 * MIB + 1,
      usedBytes: 28 * MIB,
      limitBytes: 30 * MIB,
    });
    expect(attachments.begin(fileOf(sessionId, 'b3', 2 * MIB), 'laptop').complete).toBe(false);
    db.close();
  });

  describe('on a real small disk', () => {
    let disk: SmallDisk;
    beforeAll(() => {
      disk = mountSmallDisk(64);
    });
    afterAll(() => disk?.unmount());

    it('ATT-3 a reservation past the free disk less the headroom and less what unfinished uploads were promised is refused: "not enough space on the desktop: N free, M asked"', () => {
      const dataDir = fs.mkdtempSync(path.join(disk.dir, 'data-'));
      const { db, sessionId } = storeWithSession(dataDir);
      const root = path.join(dataDir, 'pasted-images');
      const headroomBytes = 16 * MIB;
      const attachments = new Attachments(new UploadCatalog(db), root, new SecretFiles(), {
        quota: { perDeviceBytes: 1024 * MIB, totalBytes: 1024 * MIB, headroomBytes },
      });
      const statfs = () => fs.statfsSync(root);
      attachments.begin(fileOf(sessionId, 'first', 30 * MIB), 'phone');
      const free = statfs().bavail * statfs().bsize;
      const room = free - headroomBytes - 30 * MIB;
      expect(room).toBeGreaterThan(0);
      const refused = refusalOf(() => attachments.begin(fileOf(sessionId, 'second', room + 1), 'phone'));
      expect(refused.code).toBe('storage');
      expect(refused.data).toMatchObject({
        reason: 'disk_space',
        askedBytes: room + 1,
        freeBytes: room,
        headroomBytes,
        promisedBytes: 30 * MIB,
      });
      expect(refused.message).toBe(
        `Not enough space on the desktop: ${room.toLocaleString('en-US')} bytes free, ${(room + 1).toLocaleString('en-US')} bytes asked.`,
      );
      // What fits is accepted; then nothing more is.
      attachments.begin(fileOf(sessionId, 'third', room), 'phone');
      expect(refusalOf(() => attachments.begin(fileOf(sessionId, 'fourth', 1), 'phone')).data).toMatchObject({
        reason: 'disk_space',
        freeBytes: 0,
      });
      db.close();
    });
  });

  it('ATT-3 a full quota frees when its unfinished uploads expire; an upload that got a chunk within the expiry stays', async () => {
    const dir = makeTempDir('hbcode-quota-');
    const { db, sessionId } = storeWithSession(dir);
    let now = 1_000_000;
    const root = path.join(dir, 'pasted-images');
    const attachments = new Attachments(new UploadCatalog(db), root, new SecretFiles(), {
      quota: { perDeviceBytes: 4 * MIB, totalBytes: 64 * MIB, headroomBytes: 0, expiryMs: HOUR },
      now: () => now,
    });
    const stale = attachments.begin(fileOf(sessionId, 'stale', 2 * MIB), 'phone');
    const bytes = crypto.randomBytes(2 * MIB);
    const busy = attachments.begin(
      { ...fileOf(sessionId, 'busy', bytes.length), sha256: crypto.createHash('sha256').update(bytes).digest('hex') },
      'phone',
    );
    const chunk = bytes.subarray(0, ATTACHMENT_CHUNK_BYTES);
    expect(refusalOf(() => attachments.begin(fileOf(sessionId, 'next', MIB), 'phone')).data).toMatchObject({
      reason: 'device_quota',
      usedBytes: 4 * MIB,
    });

    now += HOUR / 2;
    await attachments.chunk(
      {
        sessionId,
        uploadId: busy.uploadId,
        offset: 0,
        sha256: crypto.createHash('sha256').update(chunk).digest('hex'),
      },
      chunk,
    );
    // The chunk is confirmed before its writer lets go of the upload: one turn of the event loop.
    await new Promise((resolve) => setImmediate(resolve));
    const partial = path.join(root, sessionId, busy.uploadId, '.partial');
    expect(fs.statSync(partial).size).toBe(ATTACHMENT_CHUNK_BYTES);
    now += HOUR / 2; // `stale` is now exactly an hour old: not yet past the expiry.
    expect(refusalOf(() => attachments.begin(fileOf(sessionId, 'next', MIB), 'phone')).data).toMatchObject({
      reason: 'device_quota',
    });

    now += 1;
    const next = attachments.begin(fileOf(sessionId, 'next', MIB), 'phone');
    expect(next.complete).toBe(false);
    expect(() => attachments.status(sessionId, stale.uploadId)).toThrow('No such upload.');
    expect(attachments.status(sessionId, busy.uploadId)).toMatchObject({ confirmedOffset: ATTACHMENT_CHUNK_BYTES });
    expect(fs.existsSync(partial)).toBe(true);

    now += HOUR / 2 + 1; // `busy` last had a chunk over an hour ago: it expires, with its stored bytes.
    expect(attachments.expireAbandoned()).toBe(1);
    expect(fs.existsSync(path.join(root, sessionId, busy.uploadId))).toBe(false);
    expect(attachments.begin(fileOf(sessionId, 'after', 2 * MIB), 'phone').complete).toBe(false);
    db.close();
  });
});
