import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, BrowserContextOptions, Page, Route, WebSocketRoute } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeBinaryFrame } from '../../lib/protocol/binaryFrame';
import { ATTACHMENT_CHUNK_BYTES } from '../../lib/protocol/attachments';
import type { MessageRow } from '../../lib/protocol/rows';
import { REPO_ROOT } from '../../server/runtime/paths';
import { AGENT_INSTALL_TIMEOUT_MS, AGENT_TEST_TIMEOUT_MS, installedAgents } from '../fixtures/agentPackages';
import { sha256Of } from '../fixtures/attachmentUploads';
import { connectChromium } from '../fixtures/sharedChromium';
import { claudeEnv, claudeTurnScript, messagesImages } from '../fixtures/fakeClaudeModel';
import { codexConfigToml, codexTurnScript, responsesInputImages } from '../fixtures/fakeCodexModel';
import { startFakeModelServer, type FakeModelServer } from '../fixtures/fakeModelServer';
import { noisePng } from '../fixtures/noisePng';
import { startRuntimeProcess, type RuntimeProcess } from '../fixtures/runtimeProcess';
import { waitUntil } from '../fixtures/waitUntil';
import { commandRow, newPairingCode, pairThroughLink, startupPairingCode, waitCommandFinished } from './appHarness';

// ATT-1 and ATT-2 in real Chromium at phone size against the real runtime, a real Codex and a
// real Claude Code (each talking to a fake model server that records what it receives).

const PHONE: BrowserContextOptions = {
  viewport: { width: 390, height: 844 },
  deviceScaleFactor: 2,
  isMobile: true,
  hasTouch: true,
};
const DESKTOP: BrowserContextOptions = { viewport: { width: 1280, height: 800 } };
const MIN_TARGET_PX = 44;

/** Over 5 MiB of PNG noise, small enough in pixels that Codex passes it on as it is. */
const IMAGE = noisePng(1400, 940, 21);
/** Under Claude Code's own 512,000-byte budget per image block, which it passes on as it is. */
const SMALL_IMAGE = noisePng(350, 340, 22);

function keptScreenshot(name: string): string {
  const dir = path.join(REPO_ROOT, 'docs', 'screenshots');
  fs.mkdirSync(dir, { recursive: true });
  return path.join(dir, `attachments-${name}.png`);
}

async function screenshots(page: Page, name: string): Promise<void> {
  for (const colorScheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme });
    await page.screenshot({ path: keptScreenshot(`${name}-${colorScheme}`) });
  }
  await page.emulateMedia({ colorScheme: 'light' });
}

/** Attachment controls smaller than a fingertip. */
function smallAttachmentTargets(page: Page): Promise<string[]> {
  return page.evaluate((min) => {
    const small: string[] = [];
    for (const el of document.querySelectorAll<HTMLElement>(
      '.attach-button, .attach-remove, .attach-thumb, .attach-full-close, .composer button',
    )) {
      const r = el.getBoundingClientRect();
      if (r.width === 0) continue;
      if (r.width < min - 0.5 || r.height < min - 0.5)
        small.push(`${el.getAttribute('aria-label') ?? el.textContent} ${Math.round(r.width)}x${Math.round(r.height)}`);
    }
    return small;
  }, MIN_TARGET_PX);
}

async function newAgentSession(page: Page, agent: 'codex' | 'claude' | 'shell'): Promise<void> {
  await page.getByLabel('Agent').first().selectOption(agent);
  await page.getByRole('button', { name: 'New session' }).first().click();
  await page.getByRole('textbox', { name: 'Message' }).waitFor();
}

async function backToSessions(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'Back to sessions' }).click();
  await page.getByRole('button', { name: 'New session' }).first().waitFor();
}

/** The message row's image thumbnail once its verified chunks arrived; answers the image's natural width. */
async function thumbnailWidth(page: Page, name: string): Promise<number> {
  const img = page.locator(`[data-row="message"] [data-attachment="${name}"] img`);
  await img.waitFor({ timeout: 60_000 });
  return waitUntil(
    () => img.evaluate((el: HTMLImageElement) => el.complete && el.naturalWidth),
    `the thumbnail of ${name} loads`,
    60_000,
  );
}

describe('ATT-1 ATT-2 attachments from the app', () => {
  let codexModel: FakeModelServer;
  let claudeModel: FakeModelServer;
  let configDir: string;
  let runtime: RuntimeProcess;
  let browser: Browser;
  let phone: Page;

  beforeAll(async () => {
    const agents = installedAgents();
    codexModel = await startFakeModelServer(codexTurnScript(() => ({ message: 'Noise, in colour.' })));
    claudeModel = await startFakeModelServer(claudeTurnScript(() => ({ message: 'Noise, in colour.' })));
    configDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hbcode-claude-config-'));
    runtime = await startRuntimeProcess({
      env: {
        ...claudeEnv(claudeModel.url, configDir, agents.claudeBin),
        HBCODE_CODEX_BIN: agents.codexBin,
        HBCODE_CODEX_CONFIG_TOML: codexConfigToml(codexModel.url),
      },
    });
    browser = await connectChromium();
    phone = await (await browser.newContext(PHONE)).newPage();
    phone.setDefaultTimeout(60_000);
    await pairThroughLink(phone, runtime.appOrigin, startupPairingCode(runtime));
  }, AGENT_INSTALL_TIMEOUT_MS);
  afterAll(async () => {
    await browser?.close();
    await runtime?.stop();
    await codexModel?.close();
    await claudeModel?.close();
    if (configDir) fs.rmSync(configDir, { recursive: true, force: true });
  });

  it(
    'ATT-2 a 5 MiB photo from the phone camera input reaches a real Codex turn byte for byte, shows as a thumbnail and opens full size',
    async () => {
      expect(IMAGE.length).toBeGreaterThan(5 * 1024 * 1024);
      await newAgentSession(phone, 'codex');
      expect(await phone.getByTestId('attach-camera').getAttribute('accept')).toBe('image/*');
      expect(await phone.getByTestId('attach-camera').getAttribute('capture')).toBe('environment');
      await phone
        .getByTestId('attach-camera')
        .setInputFiles({ name: 'photo.png', mimeType: 'image/png', buffer: IMAGE });
      await phone.locator('.attach-chip[data-attachment="photo.png"] img').waitFor();
      await phone.getByRole('textbox', { name: 'Message' }).fill('What does the picture show?');
      expect(await smallAttachmentTargets(phone)).toEqual([]);
      await screenshots(phone, 'draft-phone');
      await phone.getByRole('button', { name: 'Send' }).click();

      expect(await thumbnailWidth(phone, 'photo.png')).toBe(1400);
      const sent = await waitUntil(
        () => codexModel.requests.flatMap(responsesInputImages)[0],
        'Codex sends the image to the model',
        { timeoutMs: 120_000, intervalMs: 200 },
      );
      expect(sent.mimeType).toBe('image/png');
      expect(sha256Of(sent.bytes)).toBe(sha256Of(IMAGE));
      await phone
        .locator('[data-row="agentText"]')
        .filter({ hasText: 'Noise, in colour.' })
        .waitFor({ timeout: 120_000 });
      await screenshots(phone, 'timeline-phone');

      await phone.getByRole('button', { name: 'Open photo.png full size' }).click();
      const full = phone.getByRole('dialog', { name: 'photo.png' });
      expect(await full.locator('img').evaluate((el: HTMLImageElement) => el.naturalWidth)).toBe(1400);
      expect(await smallAttachmentTargets(phone)).toEqual([]);
      await full.getByRole('button', { name: 'Close' }).click();
      await full.waitFor({ state: 'detached' });

      // The same timeline on a desktop.
      const desktop = await (await browser.newContext(DESKTOP)).newPage();
      await pairThroughLink(desktop, runtime.appOrigin, await newPairingCode(runtime));
      await desktop
        .getByRole('button', { name: /What does the picture show\?/ })
        .first()
        .click();
      expect(await thumbnailWidth(desktop, 'photo.png')).toBe(1400);
      await screenshots(desktop, 'timeline-desktop');
      await desktop.context().close();
      await backToSessions(phone);
    },
    AGENT_TEST_TIMEOUT_MS,
  );

  it(
    'ATT-2 images picked on the phone reach a real Claude turn as image blocks: a small one byte for byte, a 5 MiB one as Claude Code re-encodes it',
    async () => {
      await newAgentSession(phone, 'claude');
      await phone.getByTestId('attach-files').setInputFiles([
        { name: 'small.png', mimeType: 'image/png', buffer: SMALL_IMAGE },
        { name: 'photo.png', mimeType: 'image/png', buffer: IMAGE },
      ]);
      await phone.getByRole('textbox', { name: 'Message' }).fill('And these?');
      await phone.getByRole('button', { name: 'Send' }).click();
      const images = await waitUntil(
        () => claudeModel.requests.map(messagesImages).find((list) => list.length === 2),
        'Claude Code sends both images to the model',
        { timeoutMs: 120_000, intervalMs: 200 },
      );
      expect(images[0]!.mimeType).toBe('image/png');
      expect(sha256Of(images[0]!.bytes)).toBe(sha256Of(SMALL_IMAGE));
      // NOTE: Claude Code shrinks every image block over 512,000 bytes itself, as JPEG, before the model sees it.
      expect(images[1]!.mimeType).toBe('image/jpeg');
      expect(images[1]!.bytes.length).toBeLessThanOrEqual(512_000);
      expect(await thumbnailWidth(phone, 'small.png')).toBe(350);
      await backToSessions(phone);
    },
    AGENT_TEST_TIMEOUT_MS,
  );

  describe('ATT-1 an upload cut off by the network', () => {
    let page: Page;
    let offline = false;
    const sockets: { page: WebSocketRoute; server: WebSocketRoute }[] = [];
    /** Offsets of the chunks that reached the runtime, in order, and where the network was cut. */
    const forwarded: number[] = [];
    let cutAfterChunks: number | null = null;

    function routeRpc(ws: WebSocketRoute): void {
      if (offline) {
        void ws.close({ code: 4000, reason: 'test: offline' });
        return;
      }
      const server = ws.connectToServer();
      sockets.push({ page: ws, server });
      ws.onMessage((message) => {
        if (offline) return;
        if (typeof message !== 'string') {
          const { header } = decodeBinaryFrame(new Uint8Array(message));
          const offset = (header as { params?: { offset?: number } }).params?.offset ?? -1;
          if (cutAfterChunks !== null && forwarded.length >= cutAfterChunks) {
            goOffline();
            return;
          }
          forwarded.push(offset);
        }
        server.send(message);
      });
      server.onMessage((message) => {
        if (!offline) ws.send(message);
      });
    }

    /**
     * Chunks travel as HTTP PUTs beside the socket (ATT-1), on several connections, so they may
     * reach this route in any order: those past the cut never get through, and the network goes
     * once one of them was seen and all those before the cut got through.
     */
    let pastCutSeen = false;
    const cutIfDue = () => {
      if (!offline && pastCutSeen && cutAfterChunks !== null && forwarded.length >= cutAfterChunks) goOffline();
    };
    async function routeChunk(route: Route): Promise<void> {
      const offset = Number(new URL(route.request().url()).searchParams.get('offset'));
      if (offline || (cutAfterChunks !== null && offset >= cutAfterChunks * ATTACHMENT_CHUNK_BYTES)) {
        pastCutSeen = true;
        cutIfDue();
        return route.abort('internetdisconnected');
      }
      forwarded.push(offset);
      cutIfDue();
      return route.continue();
    }

    function goOffline(): void {
      offline = true;
      for (const socket of sockets.splice(0)) {
        void socket.server.close().catch(() => {});
        void socket.page.close().catch(() => {});
      }
    }

    beforeAll(async () => {
      page = await (await browser.newContext(PHONE)).newPage();
      page.setDefaultTimeout(60_000);
      await page.routeWebSocket(/\/rpc$/, routeRpc);
      await page.route(/\/api\/attachments\/chunk\?/, routeChunk);
      await pairThroughLink(page, runtime.appOrigin, await newPairingCode(runtime));
    });

    it(
      'ATT-1 the network cut after 2 chunks: the upload resumes at 2 MiB after reconnecting, and the message is delivered once',
      async () => {
        await newAgentSession(page, 'shell');
        cutAfterChunks = 2;
        await page
          .getByTestId('attach-files')
          .setInputFiles({ name: 'photo.png', mimeType: 'image/png', buffer: IMAGE });
        await page.getByRole('textbox', { name: 'Message' }).fill('wc -c');
        await page.getByRole('button', { name: 'Send' }).click();
        await waitUntil(() => offline, 'the network is cut after 2 chunks', 60_000);
        // Chunk requests travel on several HTTP connections: which offsets got through matters, not their order.
        const inOrder = () => [...forwarded].sort((a, b) => a - b);
        expect(inOrder()).toEqual([0, ATTACHMENT_CHUNK_BYTES]);
        await page.locator('[data-row="outbox"][data-outbox-state="queued"]').waitFor();
        await screenshots(page, 'offline-phone');

        const observer = await runtime.connect();
        try {
          const { sessions } = await observer.call('sessions.list');
          const sessionId = sessions.find((s) => s.agent === 'shell')!.id;
          // begin is idempotent for the same file: it tells where the runtime stands.
          const standing = await observer.call('attachments.begin', {
            sessionId,
            name: 'photo.png',
            mimeType: 'image/png',
            byteLength: IMAGE.length,
            sha256: sha256Of(IMAGE),
          });
          expect(standing).toMatchObject({ confirmedOffset: 2 * ATTACHMENT_CHUNK_BYTES, complete: false });
          expect((await observer.call('sessions.timeline', { sessionId })).rows).toEqual([]);

          cutAfterChunks = null;
          pastCutSeen = false;
          forwarded.length = 0;
          offline = false;
          await page.evaluate(() => window.dispatchEvent(new Event('online')));
          const stored = path.join(runtime.dataDir, 'pasted-images', sessionId, standing.uploadId, 'photo.png');
          expect(await waitCommandFinished(page, `wc -c '${stored}'`)).toBe('exit 0');
          expect(inOrder()).toEqual([2, 3, 4, 5].map((i) => i * ATTACHMENT_CHUNK_BYTES));
          expect(fs.readFileSync(stored).equals(IMAGE)).toBe(true);
          const messages = (await observer.call('sessions.timeline', { sessionId })).rows.filter(
            (r): r is MessageRow => r.kind === 'message',
          );
          expect(messages).toHaveLength(1);
          expect(messages[0]!.attachments?.map((a) => a.uploadId)).toEqual([standing.uploadId]);
          expect(await thumbnailWidth(page, 'photo.png')).toBe(1400);
          await commandRow(page, `wc -c '${stored}'`).waitFor();
        } finally {
          observer.close();
        }
      },
      AGENT_TEST_TIMEOUT_MS,
    );

    it(
      "ATT-1 a file that is not an image, sent as one, fails in the outbox with the runtime's reason and is never attached",
      async () => {
        await page.getByTestId('attach-files').setInputFiles({
          name: 'fake.png',
          mimeType: 'image/png',
          buffer: Buffer.from('#!/bin/sh\necho no picture\n'),
        });
        await page.getByRole('textbox', { name: 'Message' }).fill('cat');
        await page.getByRole('button', { name: 'Send' }).click();
        const failed = page.locator('[data-row="outbox"][data-outbox-state="failed"]');
        await failed.waitFor();
        expect(await failed.textContent()).toMatch(/sent as image\/png but its bytes are not such an image/);
        expect(await page.locator('[data-row="message"]').count()).toBe(1);
      },
      AGENT_TEST_TIMEOUT_MS,
    );
  });
});
