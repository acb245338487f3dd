import Database from 'better-sqlite3';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RpcClient } from '../../../lib/client/rpcClient';
import { ATTACHMENT_CHUNK_BYTES, MAX_ATTACHMENT_BYTES } from '../../../lib/protocol/attachments';
import type { MessageRow } from '../../../lib/protocol/rows';
import { sendWithAttachments, sha256Of, uploadBytes } from '../../fixtures/attachmentUploads';
import { noisePng } from '../../fixtures/noisePng';
import { expectRpcError } from '../../fixtures/rpcErrors';
import { REPO_ROOT } from '../../../server/runtime/paths';
import { startRuntimeProcess, type RuntimeProcess } from '../../fixtures/runtimeProcess';
import { createShellSession, readWholeOutput, waitForCommand } from '../../fixtures/sessionHelpers';
import { seededRandom } from '../../fixtures/seededRandom';

function seededBytes(length: number, seed: number): Buffer {
  const random = seededRandom(seed);
  const bytes = Buffer.alloc(length);
  for (let i = 0; i < length; i++) bytes[i] = Math.floor(random() * 256);
  return bytes;
}

const chunkOf = (bytes: Buffer, index: number) =>
  bytes.subarray(index * ATTACHMENT_CHUNK_BYTES, (index + 1) * ATTACHMENT_CHUNK_BYTES);

async function sendChunk(
  client: RpcClient,
  sessionId: string,
  uploadId: string,
  offset: number,
  bytes: Buffer,
  sha256 = sha256Of(bytes),
) {
  return client.callWithBytes('attachments.chunk', { sessionId, uploadId, offset, sha256, dataBase64: '' }, bytes);
}

function messageRows(rows: { kind: string }[]): MessageRow[] {
  return rows.filter((r): r is MessageRow => r.kind === 'message');
}

describe('ATT-1 attachments over a real WebSocket', () => {
  let runtime: RuntimeProcess;
  let client: RpcClient;

  beforeAll(async () => {
    runtime = await startRuntimeProcess();
    client = await runtime.connect();
  });
  afterAll(async () => {
    client?.close();
    await runtime?.stop();
  });

  it('ATT-1 ATT-2 a 3.5 MiB file goes up in 1 MiB chunks, is stored byte for byte owner-only under pasted-images/, the message lists it, the shell gets its path, and a session delete removes it', async () => {
    const sessionId = await createShellSession(client);
    const bytes = seededBytes(3.5 * ATTACHMENT_CHUNK_BYTES, 1);
    const { status, progress } = await uploadBytes(
      client,
      sessionId,
      'notes v1.bin',
      'application/octet-stream',
      bytes,
    );
    expect(status).toMatchObject({ complete: true, confirmedOffset: bytes.length, byteLength: bytes.length });
    expect(progress).toEqual([0, 1, 2, 3].map((i) => i * ATTACHMENT_CHUNK_BYTES).concat(bytes.length));

    const stored = path.join(runtime.dataDir, 'pasted-images', sessionId, status.uploadId, 'notes v1.bin');
    expect(fs.readFileSync(stored).equals(bytes)).toBe(true);
    expect(fs.statSync(stored).mode & 0o777).toBe(0o600);
    expect(fs.statSync(path.dirname(stored)).mode & 0o777).toBe(0o700);
    expect(fs.statSync(path.join(runtime.dataDir, 'pasted-images')).mode & 0o777).toBe(0o700);

    const { runId } = await sendWithAttachments(client, sessionId, 'wc -c', [status.uploadId]);
    const command = await waitForCommand(client, sessionId, runId);
    expect(command.command).toBe(`wc -c '${stored}'`);
    expect((await readWholeOutput(client, sessionId, command)).toString()).toBe(`${bytes.length} ${stored}\n`);
    const { rows } = await client.call('sessions.timeline', { sessionId });
    expect(messageRows(rows)[0]!.attachments).toEqual([
      {
        uploadId: status.uploadId,
        name: 'notes v1.bin',
        mimeType: 'application/octet-stream',
        byteLength: bytes.length,
        sha256: sha256Of(bytes),
      },
    ]);

    await client.call('sessions.delete', { sessionId });
    expect(fs.existsSync(path.join(runtime.dataDir, 'pasted-images', sessionId))).toBe(false);
  });

  it('ATT-1 an upload cut off after 2 chunks resumes from the last confirmed offset on a new connection, and the message is delivered once', async () => {
    const sessionId = await createShellSession(client);
    const image = noisePng(1000, 800, 2);
    const first = await runtime.connect();
    const begun = await first.call('attachments.begin', {
      sessionId,
      name: 'photo.png',
      mimeType: 'image/png',
      byteLength: image.length,
      sha256: sha256Of(image),
    });
    expect(begun).toMatchObject({ confirmedOffset: 0, complete: false });
    await sendChunk(first, sessionId, begun.uploadId, 0, chunkOf(image, 0));
    await sendChunk(first, sessionId, begun.uploadId, ATTACHMENT_CHUNK_BYTES, chunkOf(image, 1));
    first.close();
    await first.closed;

    const again = await runtime.connect();
    expect(await again.call('attachments.status', { sessionId, uploadId: begun.uploadId })).toMatchObject({
      confirmedOffset: 2 * ATTACHMENT_CHUNK_BYTES,
      complete: false,
    });
    // Not complete yet: a message with it is refused, and nothing of the message is recorded.
    const early = await expectRpcError(
      sendWithAttachments(again, sessionId, 'wc -c', [begun.uploadId]),
      'invalid_params',
    );
    expect(early.data).toMatchObject({ reason: 'incomplete', confirmedOffset: 2 * ATTACHMENT_CHUNK_BYTES });
    expect((await again.call('sessions.timeline', { sessionId })).rows).toEqual([]);

    const { status, progress } = await uploadBytes(again, sessionId, 'photo.png', 'image/png', image);
    expect(status.uploadId).toBe(begun.uploadId);
    expect(progress[0]).toBe(2 * ATTACHMENT_CHUNK_BYTES);
    expect(status.complete).toBe(true);

    const sent = await sendWithAttachments(again, sessionId, 'wc -c', [status.uploadId]);
    const retried = await sendWithAttachments(again, sessionId, 'wc -c', [status.uploadId], sent.operationId);
    expect(retried.runId).toBe(sent.runId);
    const command = await waitForCommand(again, sessionId, sent.runId);
    expect((await readWholeOutput(again, sessionId, command)).toString()).toMatch(new RegExp(`^${image.length} `));
    const { rows } = await again.call('sessions.timeline', { sessionId });
    expect(messageRows(rows)).toHaveLength(1);
    // The same operation id with other attachments is another message: refused.
    expect(
      (
        await expectRpcError(
          again.call('chat.send', { sessionId, operationId: sent.operationId, text: 'wc -c' }),
          'conflict',
        )
      ).message,
    ).toMatch(/different message/);
    again.close();
  });

  it('ATT-1 attachments.read answers verified chunks of a complete upload, as files.readBinary does', async () => {
    const sessionId = await createShellSession(client);
    const bytes = seededBytes(ATTACHMENT_CHUNK_BYTES + 999, 3);
    const { status } = await uploadBytes(client, sessionId, 'a.bin', 'application/octet-stream', bytes);
    const { result, data } = await client.callBinary('attachments.read', {
      sessionId,
      uploadId: status.uploadId,
      offset: 1000,
      length: 4096,
    });
    expect(result).toMatchObject({
      offset: 1000,
      nextOffset: 5096,
      byteCount: 4096,
      size: bytes.length,
      mimeType: 'application/octet-stream',
      contentVersion: sha256Of(bytes),
      sha256: sha256Of(bytes.subarray(1000, 5096)),
    });
    expect(Buffer.from(data).equals(bytes.subarray(1000, 5096))).toBe(true);
  });

  it('ATT-1 an upload resumes across a runtime restart (its digest taken again from disk), and one the runtime died naming is found complete', async () => {
    const sessionId = await createShellSession(client);
    const bytes = seededBytes(3 * ATTACHMENT_CHUNK_BYTES + 77, 9);
    const upload = await client.call('attachments.begin', {
      sessionId,
      name: 'r.bin',
      mimeType: 'application/octet-stream',
      byteLength: bytes.length,
      sha256: sha256Of(bytes),
    });
    await sendChunk(client, sessionId, upload.uploadId, 0, chunkOf(bytes, 0));
    await sendChunk(client, sessionId, upload.uploadId, ATTACHMENT_CHUNK_BYTES, chunkOf(bytes, 1));
    const other = seededBytes(ATTACHMENT_CHUNK_BYTES + 3, 10);
    const named = (await uploadBytes(client, sessionId, 'named.bin', 'application/octet-stream', other)).status;
    client.close();
    await runtime.stop();
    // As if the runtime died after naming the file and before recording it complete.
    const db = new Database(path.join(runtime.dataDir, 'hbcode.db'));
    db.prepare(
      'UPDATE attachment_uploads SET complete = 0, completed_at = NULL, confirmed_offset = ? WHERE id = ?',
    ).run(ATTACHMENT_CHUNK_BYTES, named.uploadId);
    db.close();

    runtime = await runtime.restart();
    client = await runtime.connect();
    expect(await client.call('attachments.status', { sessionId, uploadId: named.uploadId })).toMatchObject({
      complete: true,
      confirmedOffset: other.length,
    });
    const { status, progress } = await uploadBytes(client, sessionId, 'r.bin', 'application/octet-stream', bytes);
    expect(progress[0]).toBe(2 * ATTACHMENT_CHUNK_BYTES);
    expect(status).toMatchObject({ uploadId: upload.uploadId, complete: true });
    expect(
      fs.readFileSync(path.join(runtime.dataDir, 'pasted-images', sessionId, upload.uploadId, 'r.bin')).equals(bytes),
    ).toBe(true);
  });

  describe('ATT-1 bad input is refused with its error and nothing half-stored is ever attached', () => {
    let sessionId: string;
    let otherSessionId: string;
    beforeAll(async () => {
      sessionId = await createShellSession(client);
      otherSessionId = await createShellSession(client);
    });

    const begin = (
      byteLength: number,
      sha256: string,
      mimeType = 'application/octet-stream',
      name = 'f.bin',
      session = sessionId,
    ) => client.call('attachments.begin', { sessionId: session, name, mimeType, byteLength, sha256 });

    it('a file over 2,048 chunks of 1 MiB', async () => {
      const refused = await expectRpcError(begin(MAX_ATTACHMENT_BYTES + 1, '0'.repeat(64)), 'too_large');
      expect(refused.data).toMatchObject({ reason: 'too_large', limit: 2048 * 1024 * 1024 });
      expect(refused.message).toMatch(/at most 2147483648 bytes/);
      // Exactly the limit is accepted.
      expect(await begin(MAX_ATTACHMENT_BYTES, 'f'.repeat(64))).toMatchObject({ confirmedOffset: 0 });
    });

    it('a chunk whose SHA-256 does not match its bytes stores nothing', async () => {
      const bytes = seededBytes(1500, 4);
      const upload = await begin(bytes.length, sha256Of(bytes));
      const refused = await expectRpcError(
        sendChunk(client, sessionId, upload.uploadId, 0, bytes, sha256Of(Buffer.from('other'))),
        'invalid_params',
      );
      expect(refused.data).toMatchObject({ reason: 'digest_mismatch' });
      expect(await client.call('attachments.status', { sessionId, uploadId: upload.uploadId })).toMatchObject({
        confirmedOffset: 0,
        complete: false,
      });
      expect(fs.existsSync(path.join(runtime.dataDir, 'pasted-images', sessionId, upload.uploadId))).toBe(false);
    });

    it('chunks sent together: those before a bad one are confirmed, the bad one and those after it are refused', async () => {
      const bytes = seededBytes(3 * ATTACHMENT_CHUNK_BYTES, 11);
      const upload = await begin(bytes.length, sha256Of(bytes));
      const answers = await Promise.allSettled([
        sendChunk(client, sessionId, upload.uploadId, 0, chunkOf(bytes, 0)),
        sendChunk(
          client,
          sessionId,
          upload.uploadId,
          ATTACHMENT_CHUNK_BYTES,
          chunkOf(bytes, 1),
          sha256Of(Buffer.from('wrong')),
        ),
        sendChunk(client, sessionId, upload.uploadId, 2 * ATTACHMENT_CHUNK_BYTES, chunkOf(bytes, 2)),
      ]);
      expect(answers[0]).toMatchObject({ status: 'fulfilled', value: { confirmedOffset: ATTACHMENT_CHUNK_BYTES } });
      expect(answers[1]).toMatchObject({
        status: 'rejected',
        reason: { code: 'invalid_params', data: { reason: 'digest_mismatch' } },
      });
      expect(answers[2]).toMatchObject({
        status: 'rejected',
        reason: { code: 'conflict', data: { reason: 'out_of_order', confirmedOffset: ATTACHMENT_CHUNK_BYTES } },
      });
      expect(await client.call('attachments.status', { sessionId, uploadId: upload.uploadId })).toMatchObject({
        confirmedOffset: ATTACHMENT_CHUNK_BYTES,
      });
    });

    it('a chunk at an out-of-order offset, and a chunk of the wrong size', async () => {
      const bytes = seededBytes(2 * ATTACHMENT_CHUNK_BYTES + 10, 5);
      const upload = await begin(bytes.length, sha256Of(bytes));
      const ahead = await expectRpcError(
        sendChunk(client, sessionId, upload.uploadId, ATTACHMENT_CHUNK_BYTES, chunkOf(bytes, 1)),
        'conflict',
      );
      expect(ahead.data).toMatchObject({ reason: 'out_of_order', confirmedOffset: 0 });
      await sendChunk(client, sessionId, upload.uploadId, 0, chunkOf(bytes, 0));
      const behind = await expectRpcError(
        sendChunk(client, sessionId, upload.uploadId, 0, chunkOf(bytes, 0)),
        'conflict',
      );
      expect(behind.data).toMatchObject({ reason: 'out_of_order', confirmedOffset: ATTACHMENT_CHUNK_BYTES });
      const short = await expectRpcError(
        sendChunk(
          client,
          sessionId,
          upload.uploadId,
          ATTACHMENT_CHUNK_BYTES,
          bytes.subarray(ATTACHMENT_CHUNK_BYTES, ATTACHMENT_CHUNK_BYTES + 100),
        ),
        'invalid_params',
      );
      expect(short.data).toMatchObject({ reason: 'chunk_size', expected: ATTACHMENT_CHUNK_BYTES });
    });

    it('an upload id of another session, for a chunk, a status and a message', async () => {
      const bytes = seededBytes(100, 6);
      const { status } = await uploadBytes(client, otherSessionId, 'theirs.bin', 'application/octet-stream', bytes);
      const calls = [
        () => sendChunk(client, sessionId, status.uploadId, 0, bytes),
        () => client.call('attachments.status', { sessionId, uploadId: status.uploadId }),
        () => client.callBinary('attachments.read', { sessionId, uploadId: status.uploadId, offset: 0 }),
        () => sendWithAttachments(client, sessionId, 'cat', [status.uploadId]),
      ];
      for (const call of calls)
        expect((await expectRpcError(call(), 'conflict')).data).toMatchObject({ reason: 'other_session' });
      expect(
        (await expectRpcError(sendWithAttachments(client, sessionId, 'cat', [`u${'a'.repeat(32)}`]), 'not_found')).data,
      ).toMatchObject({ uploadId: `u${'a'.repeat(32)}` });
      expect(messageRows((await client.call('sessions.timeline', { sessionId })).rows)).toEqual([]);
    });

    it('a file that is not an image sent as one', async () => {
      const text = Buffer.from('#!/bin/sh\necho this is no picture\n');
      const upload = await begin(text.length, sha256Of(text), 'image/png', 'fake.png');
      const refused = await expectRpcError(sendChunk(client, sessionId, upload.uploadId, 0, text), 'invalid_params');
      expect(refused.data).toMatchObject({ reason: 'not_an_image' });
      expect(refused.message).toMatch(/image\/png/);
      // The same bytes as a file are fine, and a real PNG as an image too.
      expect((await uploadBytes(client, sessionId, 'script.sh', 'text/x-sh', text)).status.complete).toBe(true);
      expect((await uploadBytes(client, sessionId, 'dot.png', 'image/png', noisePng(2, 2, 7))).status.complete).toBe(
        true,
      );
    });

    it('a whole file whose SHA-256 differs from the one it began with is dropped at its last chunk', async () => {
      const bytes = seededBytes(ATTACHMENT_CHUNK_BYTES + 5, 8);
      const upload = await begin(bytes.length, sha256Of(Buffer.from('not these bytes')));
      await sendChunk(client, sessionId, upload.uploadId, 0, chunkOf(bytes, 0));
      const refused = await expectRpcError(
        sendChunk(client, sessionId, upload.uploadId, ATTACHMENT_CHUNK_BYTES, chunkOf(bytes, 1)),
        'invalid_params',
      );
      expect(refused.data).toMatchObject({ reason: 'digest_mismatch' });
      expect(await client.call('attachments.status', { sessionId, uploadId: upload.uploadId })).toMatchObject({
        confirmedOffset: 0,
        complete: false,
      });
      expect(
        (await expectRpcError(sendWithAttachments(client, sessionId, 'cat', [upload.uploadId]), 'invalid_params')).data,
      ).toMatchObject({ reason: 'incomplete' });
      expect(fs.readdirSync(path.join(runtime.dataDir, 'pasted-images', sessionId, upload.uploadId))).toEqual([]);
    });

    it('a binary frame for a method that takes no bytes, and bytes both raw and in base64', async () => {
      const refused = await expectRpcError(
        client.callWithBytes('projects.list' as 'attachments.chunk', {} as never, new Uint8Array(4)),
        'invalid_params',
        { jsonrpcCode: -32600 },
      );
      expect(refused.message).toMatch(/takes no bytes/);
      const bytes = Buffer.from('abc');
      const upload = await begin(bytes.length, sha256Of(bytes));
      const both = client.callWithBytes(
        'attachments.chunk',
        {
          sessionId,
          uploadId: upload.uploadId,
          offset: 0,
          sha256: sha256Of(bytes),
          dataBase64: bytes.toString('base64'),
        },
        bytes,
      );
      await expectRpcError(both, 'invalid_params');
      // Base64 alone works.
      expect(
        await client.call('attachments.chunk', {
          sessionId,
          uploadId: upload.uploadId,
          offset: 0,
          sha256: sha256Of(bytes),
          dataBase64: bytes.toString('base64'),
        }),
      ).toMatchObject({ complete: true });
    });
  });
});

describe('ATT-1 an upload whose runtime died between naming the file and recording it', () => {
  it('ATT-1 begin after the restart answers the upload complete, and a message can carry it', async () => {
    const preload = path.join(REPO_ROOT, 'tests', 'fixtures', 'dieAfterUploadNamed.ts');
    // The runtime dies right after it named the finished file, before the record says complete.
    // The preload is TypeScript: tsx loads it; the runtime itself still runs from its bundle.
    let runtime = await startRuntimeProcess({
      wrap: ([node, ...rest]) => [node!, '--import', 'tsx', '--import', preload, ...rest],
    });
    let client = await runtime.connect();
    const sessionId = await createShellSession(client);
    const bytes = seededBytes(2.5 * ATTACHMENT_CHUNK_BYTES, 7);
    const begin = {
      sessionId,
      name: 'cut.bin',
      mimeType: 'application/octet-stream',
      byteLength: bytes.length,
      sha256: sha256Of(bytes),
    };
    const { uploadId } = await client.call('attachments.begin', begin);
    await sendChunk(client, sessionId, uploadId, 0, chunkOf(bytes, 0));
    await sendChunk(client, sessionId, uploadId, ATTACHMENT_CHUNK_BYTES, chunkOf(bytes, 1));
    await expect(
      sendChunk(client, sessionId, uploadId, 2 * ATTACHMENT_CHUNK_BYTES, chunkOf(bytes, 2)),
    ).rejects.toBeDefined();
    expect(await runtime.exited).toMatchObject({ signal: 'SIGKILL' });
    client.close();
    const stored = path.join(runtime.dataDir, 'pasted-images', sessionId, uploadId, 'cut.bin');
    expect(fs.readFileSync(stored).equals(bytes)).toBe(true);

    runtime = await runtime.restart({ wrap: undefined });
    client = await runtime.connect();
    try {
      // The client resumes through begin: it must hear that nothing is left to send.
      expect(await client.call('attachments.begin', begin)).toEqual({
        uploadId,
        confirmedOffset: bytes.length,
        byteLength: bytes.length,
        complete: true,
      });
      const { runId } = await sendWithAttachments(client, sessionId, 'wc -c', [uploadId]);
      const command = await waitForCommand(client, sessionId, runId);
      expect((await readWholeOutput(client, sessionId, command)).toString()).toContain(String(bytes.length));
    } finally {
      client.close();
      await runtime.stop();
    }
  });
});
