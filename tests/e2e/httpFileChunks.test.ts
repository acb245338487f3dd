import fs from 'node:fs';
import path from 'node:path';
import type { Browser, BrowserContext, Page, Route } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { HTTP_FILE_CHUNK_READ_BYTES } from '../../lib/client/fileChunks';
import { FILE_CHANGED_MESSAGE } from '../../lib/protocol/files';
import { CHUNK_HEADER } from '../../lib/protocol/httpBytes';
import { connectChromium } from '../fixtures/sharedChromium';
import { httpRequest } from '../fixtures/httpRequest';
import { startRuntimeProcess, TEST_TOKEN, type RuntimeProcess } from '../fixtures/runtimeProcess';
import { writeSeededFile } from '../fixtures/seededFile';
import type * as InPage from './httpFileChunksEntry';
import { addModuleToPage } from './moduleInPage';

// FILE-2 and FILE-5 in real Chromium against the real runtime: a file read in chunks over HTTP
// arrives whole, and a damaged, short or long chunk, or a file changed midway, rejects the read.

declare global {
  // The bundle of httpFileChunksEntry.ts, as the page sees it.
  var httpFileChunks: typeof InPage;
}

const CHUNK = HTTP_FILE_CHUNK_READ_BYTES;
const SIZE = 3 * CHUNK + 12_345;
const SECOND_CHUNK = new RegExp(`/api/files/chunk\\?.*offset=${CHUNK}&`);

describe('FILE-2 FILE-5 verified file chunks over HTTP in Chromium', () => {
  let browser: Browser;
  let runtime: RuntimeProcess;
  let context: BrowserContext;
  let page: Page;
  let project: string;
  let sha256: string;

  beforeAll(async () => {
    runtime = await startRuntimeProcess();
    project = fs.realpathSync(runtime.projectDir);
    sha256 = writeSeededFile(path.join(project, 'data.bin'), SIZE, 31);
    browser = await connectChromium();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await runtime?.stop();
  });
  beforeEach(async () => {
    await context?.close();
    context = await browser.newContext({ bypassCSP: true });
    page = await context.newPage();
    await page.goto(`${runtime.appOrigin}/pair`);
    await addModuleToPage(page, 'tests/e2e/httpFileChunksEntry.ts', 'httpFileChunks');
  });

  const read = (file = 'data.bin') =>
    page.evaluate(([token, dir, p]) => globalThis.httpFileChunks.readOverHttp(token, dir, p), [
      TEST_TOKEN,
      project,
      file,
    ] as const);

  /** The runtime's own answer to an intercepted request (asked from here: only Chromium resolves the app's name). */
  const realAnswer = async (route: Route) => {
    const url = new URL(route.request().url());
    const answer = await httpRequest(runtime.port, {
      host: runtime.appHost,
      path: url.pathname + url.search,
      headers: await route.request().allHeaders(),
    });
    const headers = Object.fromEntries(Object.entries(answer.headers).map(([name, value]) => [name, String(value)]));
    return { status: answer.status, headers, body: answer.body };
  };

  /** Answers the second chunk's request with the runtime's answer changed by `change`. */
  const tamperSecondChunk = (
    change: (answer: Awaited<ReturnType<typeof realAnswer>>) => Awaited<ReturnType<typeof realAnswer>>,
  ) =>
    page.route(SECOND_CHUNK, async (route: Route) => {
      const answer = change(await realAnswer(route));
      await route.fulfill({
        status: answer.status,
        headers: { ...answer.headers, 'content-length': String(answer.body.length) },
        body: answer.body,
      });
    });
  const withBody = (change: (body: Buffer) => Buffer) =>
    tamperSecondChunk((answer) => ({ ...answer, body: change(answer.body) }));

  it('FILE-5 reads a file of several chunks byte-identical, each chunk checked', async () => {
    expect(await read()).toEqual({ sha256, bytes: SIZE, chunks: 4, error: null });
  }, 120_000);

  it("FILE-2 refuses the whole read when a chunk's bytes do not match its SHA-256", async () => {
    await withBody((body) => {
      const damaged = Buffer.from(body);
      damaged[damaged.length >> 1]! ^= 0x01;
      return damaged;
    });
    const outcome = await read();
    expect(outcome.error).toMatchObject({ code: 'integrity', message: expect.stringContaining('SHA-256 mismatch') });
    expect(outcome.chunks).toBe(1);
  }, 120_000);

  it('FILE-2 refuses a chunk whose body is shorter or longer than its header announces, or that announces more than was asked for', async () => {
    await withBody((body) => body.subarray(0, body.length - 1));
    expect((await read()).error).toMatchObject({
      code: 'integrity',
      message: expect.stringContaining(`announced ${CHUNK}`),
    });
    await page.unroute(SECOND_CHUNK);
    await withBody((body) => Buffer.concat([body, Buffer.from([7])]));
    expect((await read()).error).toMatchObject({
      code: 'integrity',
      message: expect.stringContaining(`more bytes than the ${CHUNK} announced`),
    });
    await page.unroute(SECOND_CHUNK);
    // A header announcing more than was asked for is refused before any buffer is made for it.
    await tamperSecondChunk((answer) => {
      const header = JSON.parse(answer.headers[CHUNK_HEADER]!) as { byteCount: number };
      return {
        ...answer,
        headers: { ...answer.headers, [CHUNK_HEADER]: JSON.stringify({ ...header, byteCount: 2 ** 40 }) },
      };
    });
    expect((await read()).error).toMatchObject({
      code: 'integrity',
      message: expect.stringContaining(`${2 ** 40} bytes announced, ${CHUNK} asked for`),
    });
  }, 120_000);

  it('FILE-2 refuses a chunk whose header claims another version, and a file changed midway', async () => {
    await tamperSecondChunk((answer) => {
      const header = JSON.parse(answer.headers[CHUNK_HEADER]!) as { contentVersion: string };
      return {
        ...answer,
        headers: { ...answer.headers, [CHUNK_HEADER]: JSON.stringify({ ...header, contentVersion: 'f'.repeat(32) }) },
      };
    });
    expect((await read()).error).toEqual({
      name: 'FileChangedError',
      code: 'file_changed',
      message: FILE_CHANGED_MESSAGE,
    });
    await page.unroute(SECOND_CHUNK);

    const moving = path.join(project, 'moving.bin');
    writeSeededFile(moving, SIZE, 32);
    // Rewritten as the second chunk is asked for: the runtime sees the pinned version no longer holds.
    await page.route(SECOND_CHUNK, async (route: Route) => {
      writeSeededFile(moving, SIZE, 33);
      fs.utimesSync(moving, new Date(), new Date(Date.now() + 5000));
      await route.continue();
    });
    const outcome = await read('moving.bin');
    expect(outcome.error).toEqual({ name: 'FileChangedError', code: 'file_changed', message: FILE_CHANGED_MESSAGE });
    expect(outcome.chunks).toBe(1);
  }, 120_000);
});
