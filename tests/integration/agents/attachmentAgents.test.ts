import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RpcClient } from '../../../lib/client/rpcClient';
import { AGENT_INSTALL_TIMEOUT_MS, AGENT_TEST_TIMEOUT_MS, installedAgents } from '../../fixtures/agentPackages';
import { createAgentSession, messageState, waitForRows } from '../../fixtures/agentSessions';
import { sendWithAttachments, uploadBytes } from '../../fixtures/attachmentUploads';
import { claudeEnv, claudeTurnScript, messagesImages, messagesUserText } from '../../fixtures/fakeClaudeModel';
import { codexConfigToml, codexTurnScript, responsesInput, responsesInputImages } from '../../fixtures/fakeCodexModel';
import { startFakeModelServer, type FakeModelServer } from '../../fixtures/fakeModelServer';
import { noisePng } from '../../fixtures/noisePng';
import { startRuntimeProcess, type RuntimeProcess } from '../../fixtures/runtimeProcess';

/** About 5 MiB of PNG noise, small enough in pixels that no agent scales it down. */
const IMAGE = noisePng(1400, 940, 11);
/**
 * Under 500,000 bytes: Claude Code passes an image block this small on as it is; a larger one
 * it re-encodes itself (as JPEG, to its own byte budget) before the model sees it.
 */
const CLAUDE_SIZED_IMAGE = noisePng(350, 340, 12);
const NOTES = Buffer.from('Notes that travel as a file, by path.\n');

async function sendImageAndNotes(
  client: RpcClient,
  runtime: RuntimeProcess,
  sessionId: string,
  images: Buffer[],
): Promise<{ notesPath: string }> {
  const uploads = [];
  for (const [index, image] of images.entries())
    uploads.push(await uploadBytes(client, sessionId, `screen-${index}.png`, 'image/png', image));
  const notes = await uploadBytes(client, sessionId, 'notes.txt', 'text/plain', NOTES);
  const uploadIds = [...uploads.map((u) => u.status.uploadId), notes.status.uploadId];
  const { runId } = await sendWithAttachments(client, sessionId, 'What does the picture show?', uploadIds);
  await waitForRows(client, sessionId, (rows) => {
    const state = messageState(rows, runId);
    if (state === 'failed') throw new Error(`the run failed: ${JSON.stringify(rows).slice(0, 2000)}`);
    return state === 'done';
  });
  return { notesPath: path.join(runtime.dataDir, 'pasted-images', sessionId, notes.status.uploadId, 'notes.txt') };
}

let agents: ReturnType<typeof installedAgents>;
beforeAll(() => {
  agents = installedAgents();
}, AGENT_INSTALL_TIMEOUT_MS);

describe('ATT-2 a Codex turn gets the image natively', () => {
  let model: FakeModelServer;
  let runtime: RuntimeProcess;
  let client: RpcClient;
  beforeAll(async () => {
    model = await startFakeModelServer(codexTurnScript(() => ({ message: 'A picture of noise.' })));
    runtime = await startRuntimeProcess({
      env: { HBCODE_CODEX_BIN: agents.codexBin, HBCODE_CODEX_CONFIG_TOML: codexConfigToml(model.url) },
    });
    client = await runtime.connect();
  }, AGENT_INSTALL_TIMEOUT_MS);
  afterAll(async () => {
    client?.close();
    await runtime?.stop();
    await model?.close();
  });

  it(
    'ATT-2 a 5 MiB PNG reaches the model byte for byte as an input image; a text file reaches it by its stored path',
    async () => {
      expect(IMAGE.length).toBeGreaterThan(5 * 1024 * 1024);
      const sessionId = await createAgentSession(client, 'codex');
      const { notesPath } = await sendImageAndNotes(client, runtime, sessionId, [IMAGE]);
      const turn = model.requests.find((r) => responsesInputImages(r).length > 0);
      expect(turn, 'a model request with an input image').toBeDefined();
      const images = responsesInputImages(turn!);
      expect(images).toHaveLength(1);
      expect(images[0]!.mimeType).toBe('image/png');
      expect(images[0]!.bytes.equals(IMAGE)).toBe(true);
      expect(JSON.stringify(responsesInput(turn!))).toContain(notesPath);
    },
    AGENT_TEST_TIMEOUT_MS,
  );
});

describe('ATT-2 a Claude turn gets the image as an image content block', () => {
  let model: FakeModelServer;
  let runtime: RuntimeProcess;
  let client: RpcClient;
  let configDir: string;
  beforeAll(async () => {
    model = await startFakeModelServer(claudeTurnScript(() => ({ message: 'A picture of noise.' })));
    configDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hbcode-claude-config-'));
    runtime = await startRuntimeProcess({ env: claudeEnv(model.url, configDir, agents.claudeBin) });
    client = await runtime.connect();
  }, AGENT_INSTALL_TIMEOUT_MS);
  afterAll(async () => {
    client?.close();
    await runtime?.stop();
    await model?.close();
    if (configDir) fs.rmSync(configDir, { recursive: true, force: true });
  });

  it(
    'ATT-2 a PNG reaches the model byte for byte as a base64 image block; a text file by its stored path',
    async () => {
      expect(CLAUDE_SIZED_IMAGE.length).toBeLessThan(500_000);
      const sessionId = await createAgentSession(client, 'claude');
      const { notesPath } = await sendImageAndNotes(client, runtime, sessionId, [CLAUDE_SIZED_IMAGE]);
      const turn = model.requests.find((r) => messagesImages(r).length > 0);
      expect(turn, 'a model request with an image block').toBeDefined();
      const images = messagesImages(turn!);
      expect(images).toHaveLength(1);
      expect(images[0]!.mimeType).toBe('image/png');
      expect(images[0]!.bytes.equals(CLAUDE_SIZED_IMAGE)).toBe(true);
      expect(messagesUserText(turn!)).toContain(notesPath);
    },
    AGENT_TEST_TIMEOUT_MS,
  );

  it(
    'ATT-2 a 5 MiB PNG reaches the model as an image block, which Claude Code itself re-encodes to its budget',
    async () => {
      const sessionId = await createAgentSession(client, 'claude');
      const before = model.requests.length;
      await sendImageAndNotes(client, runtime, sessionId, [IMAGE]);
      const turn = model.requests.slice(before).find((r) => messagesImages(r).length > 0);
      expect(turn, 'a model request with an image block').toBeDefined();
      const images = messagesImages(turn!);
      expect(images).toHaveLength(1);
      // NOTE: not our bytes: Claude Code shrinks every image block over 512,000 bytes (as JPEG) before sending it.
      expect(images[0]!.mimeType).toBe('image/jpeg');
      expect(images[0]!.bytes.subarray(0, 3).equals(Buffer.from([0xff, 0xd8, 0xff]))).toBe(true);
      expect(images[0]!.bytes.length).toBeLessThanOrEqual(512_000);
    },
    AGENT_TEST_TIMEOUT_MS,
  );
});
