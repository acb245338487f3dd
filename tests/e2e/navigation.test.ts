import fs from 'node:fs';
import path from 'node:path';
import type { BrowserContextOptions, Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { routeHash, type AppRoute } from '../../lib/client/appRoute';
import { scrubberPositionOf } from '../../lib/client/output/scrubberScale';
import type { CommandRow } from '../../lib/protocol/rows';
import { runShell } from '../fixtures/sessionHelpers';
import { waitUntil } from '../fixtures/waitUntil';
import {
  clickOutputControl,
  commandRow,
  DESKTOP_CONTEXT,
  newPairingCode,
  PHONE_CONTEXT,
  textInView,
} from './appHarness';
import { pairedPage, useAppSuite } from './appSuite';

// UX-1 in real Chromium: every view has its own address; Back, Forward and reload keep the user
// where they were, an output viewer's byte position included; a link opens the same view on
// another paired device; a malformed or hostile address lands on the list with a reason.

/** 600,000 lines of 13 bytes ("line 0000001\n"): line n starts at byte (n - 1) * 13. */
const LINES = 600_000;
const LINE_BYTES = 13;
const COMMAND = `seq -f 'line %07g' 1 ${LINES}`;
const FIVE_MIB = 5 * 1024 * 1024;
const lineAt = (offset: number) => Math.floor(offset / LINE_BYTES) + 1;
const lineText = (n: number) => `line ${String(n).padStart(7, '0')}`;

const hashOf = (page: Page) => page.evaluate(() => location.hash);

/** The first output line wholly inside the viewer's scrolling box. */
function topLine(page: Page): Promise<string | null> {
  return page.getByTestId('output').evaluate((box) => {
    const view = box.getBoundingClientRect();
    const lines = [...box.querySelectorAll<HTMLElement>('[data-offset]')].filter(
      (el) => el.getBoundingClientRect().top >= view.top - 1,
    );
    lines.sort((a, b) => a.getBoundingClientRect().top - b.getBoundingClientRect().top);
    return lines[0]?.textContent ?? null;
  });
}

async function waitTopLine(page: Page, expected: string): Promise<void> {
  let seen: string | null = null;
  await waitUntil(
    async () => (seen = await topLine(page)) === expected,
    () => `the viewer shows "${expected}" at its top (it shows "${seen}")`,
    30_000,
  );
}

describe('UX-1 every view has its own address', () => {
  const suite = useAppSuite({
    runtime: ({ projectDir }) => {
      fs.writeFileSync(path.join(projectDir, 'notes.txt'), 'first line of the notes\n');
      fs.writeFileSync(path.join(projectDir, 'index.html'), '<!doctype html><title>Shop</title><h1>Shop front</h1>');
      return {};
    },
  });
  let sessionId: string;
  let row: CommandRow;

  beforeAll(async () => {
    const client = await suite.runtime.connect();
    const { projects } = await client.call('projects.list');
    sessionId = (
      await client.call('sessions.create', { projectId: projects[0]!.id, agent: 'shell', title: 'Long output' })
    ).session.id;
    row = await runShell(client, sessionId, COMMAND);
    client.close();
    expect(row.byteLength).toBe(LINES * LINE_BYTES);
  }, 120_000);

  /** A page paired with a fresh code, in the light scheme. */
  const lightPage = async (options: BrowserContextOptions): Promise<Page> =>
    pairedPage(suite, { ...options, colorScheme: 'light' }, await newPairingCode(suite.runtime));

  const outputRoute = (at: number | null): AppRoute => ({
    kind: 'output',
    sessionId,
    runId: row.runId,
    commandId: row.commandId,
    at,
  });

  it.each([
    ['phone', PHONE_CONTEXT],
    ['desktop', DESKTOP_CONTEXT],
  ] as const)(
    'UX-1 (%s) list → session → output: reload keeps the byte position, Back returns to the timeline then the list, Forward comes back',
    async (_name, options) => {
      const page = await lightPage(options);
      expect(await hashOf(page)).toBe('');

      await page.locator(`[data-session-id="${sessionId}"] button.list-button`).click();
      await commandRow(page, COMMAND).waitFor();
      expect(await hashOf(page)).toBe(routeHash({ kind: 'sessions', sessionId }));
      // A reload of the timeline opens the timeline again.
      await page.reload();
      await commandRow(page, COMMAND).waitFor();

      await commandRow(page, COMMAND).click();
      // A finished command opens at its end (UX-1), its last line in view.
      await waitUntil(
        () => textInView(page, '[data-testid="output"]', lineText(LINES)),
        'the viewer opens at the last line',
        30_000,
      );
      await clickOutputControl(page, 'Start');
      await waitTopLine(page, lineText(1));
      // At the start, the address may already hold the place it shows: byte 0.
      await waitUntil(
        async () => [routeHash(outputRoute(null)), routeHash(outputRoute(0))].includes(await hashOf(page)),
        'the address shows the start',
        30_000,
      );

      // Jump to 5 MiB with the scrubber; once the view rests there, the address holds its place.
      await page.getByLabel('Position in output').fill(String(scrubberPositionOf(FIVE_MIB, row.byteLength)));
      let at: number | null = null;
      await waitUntil(
        async () => {
          const match = /[?&]at=(\d+)/.exec(await hashOf(page));
          at = match ? Number(match[1]) : null;
          return at !== null && Math.abs(at - FIVE_MIB) < 64 * 1024;
        },
        () => `the address carries a place near 5 MiB (it has ${at})`,
        30_000,
      );
      const placed = await topLine(page);
      expect(placed).toBe(lineText(lineAt(at!)));

      await page.reload();
      await waitTopLine(page, placed!);
      expect(await hashOf(page)).toBe(routeHash(outputRoute(at)));

      // Back: the session's timeline; Back again: the list; Forward twice: the viewer at its place.
      await page.goBack();
      await commandRow(page, COMMAND).waitFor();
      expect(await hashOf(page)).toBe(routeHash({ kind: 'sessions', sessionId }));
      expect(await page.getByTestId('output').count()).toBe(0);
      await page.goBack();
      await page.locator(`[data-session-id="${sessionId}"]`).waitFor();
      // The list is the address the app opened with after pairing: no hash, or `#/`.
      expect(['', '#/']).toContain(await hashOf(page));
      await page.goForward();
      await commandRow(page, COMMAND).waitFor();
      await page.goForward();
      await waitTopLine(page, placed!);

      // The in-app arrows walk the same history: ← from the viewer is Back, not a new entry.
      await page.getByRole('button', { name: 'Back to timeline' }).click();
      await commandRow(page, COMMAND).waitFor();
      await page.getByRole('button', { name: 'Back to sessions' }).click();
      await page.locator(`[data-session-id="${sessionId}"]`).waitFor();
      expect(await page.evaluate(() => history.length)).toBeGreaterThanOrEqual(3);
      await page.goForward();
      await commandRow(page, COMMAND).waitFor();
    },
    240_000,
  );

  it('PWA-2 an output opened before the connection is up, with nothing saved of it here, is read from the runtime once connected', async () => {
    const page = await lightPage(DESKTOP_CONTEXT);
    await page.locator(`[data-session-id="${sessionId}"] button.list-button`).click();
    await commandRow(page, COMMAND).waitFor();
    // The app's socket is refused until the viewer is open: the timeline comes from this device's
    // copy, the output (never read here) from nowhere.
    let refuse = true;
    await page.context().routeWebSocket(/\/rpc$/, (socket) => {
      if (refuse) void socket.close();
      else socket.connectToServer();
    });
    await page.reload();
    await commandRow(page, COMMAND).click();
    await page.getByTestId('output').waitFor();
    expect(await textInView(page, '[data-testid="output"]', lineText(LINES))).toBe(false);
    refuse = false;
    await waitUntil(
      () => textInView(page, '[data-testid="output"]', lineText(LINES)),
      'the viewer reads its end from the runtime once connected',
      30_000,
    );
    await page.context().close();
  }, 120_000);

  it('UX-1 a link to an output at a byte opens the same view on another paired device', async () => {
    const at = (lineAt(FIVE_MIB) - 1) * LINE_BYTES;
    const other = await lightPage(DESKTOP_CONTEXT);
    await other.goto(`${suite.runtime.appOrigin}/${routeHash(outputRoute(at))}`);
    await waitTopLine(other, lineText(lineAt(FIVE_MIB)));
    expect(await hashOf(other)).toBe(routeHash(outputRoute(at)));
  }, 120_000);

  it.each([
    ['phone', PHONE_CONTEXT],
    ['desktop', DESKTOP_CONTEXT],
  ] as const)(
    'UX-1 (%s) files, a file, the preview, the reader, accounts and devices each reload to themselves and walk Back and Forward',
    async (_name, options) => {
      const page = await lightPage(options);
      const project = suite.runtime.projectDir;
      const steps: { route: AppRoute; shows: () => Promise<unknown> }[] = [
        {
          route: { kind: 'files', projectDirectory: null, path: '' },
          shows: () => page.getByRole('list', { name: 'Projects' }).waitFor(),
        },
        {
          route: { kind: 'files', projectDirectory: project, path: 'notes.txt' },
          shows: () => page.getByText('first line of the notes').first().waitFor(),
        },
        {
          route: { kind: 'preview', projectDirectory: project, path: 'index.html' },
          shows: () => page.getByRole('region', { name: 'HTML preview' }).waitFor(),
        },
        {
          route: { kind: 'reader', url: 'https://example.com/article' },
          shows: () => page.getByTestId('reader-confirm').waitFor(),
        },
        { route: { kind: 'accounts' }, shows: () => page.locator('[aria-label="Accounts"]').waitFor() },
        { route: { kind: 'devices' }, shows: () => page.getByRole('heading', { name: 'Devices' }).waitFor() },
      ];
      for (const step of steps) {
        // A link click in the page: a new history entry, as the app's own links make.
        await page.evaluate((hash) => {
          location.hash = hash;
        }, routeHash(step.route));
        await step.shows();
        await page.reload();
        await step.shows();
        expect(await hashOf(page)).toBe(routeHash(step.route));
      }
      for (const step of steps.slice(0, -1).reverse()) {
        await page.goBack();
        await step.shows();
        expect(await hashOf(page)).toBe(routeHash(step.route));
      }
      for (const step of steps.slice(1)) {
        await page.goForward();
        await step.shows();
      }
    },
    240_000,
  );

  it('UX-1 a malformed or hostile address lands on the list with a reason, never a crash', async () => {
    const page = await lightPage(PHONE_CONTEXT);
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    const hostile = [
      `#/output?session=${sessionId}&run=${row.runId}&command=${row.commandId}&token=stolen`,
      '#/read?url=javascript:alert(1)',
      '#/files?dir=a&dir=b',
      `#/output?session=${sessionId}&run=${row.runId}&command=${row.commandId}&at=-5`,
      '#/%E0%A4%A',
      `#/${'x'.repeat(20_000)}`,
    ];
    for (const hash of hostile) {
      await page.goto(`${suite.runtime.appOrigin}/${hash}`);
      await page.getByText('That link does not open anything in this app, so here are your sessions.').waitFor();
      await page.locator(`[data-session-id="${sessionId}"]`).waitFor();
      expect(await hashOf(page), hash).toBe('#/');
    }
    await page.goto(`${suite.runtime.appOrigin}/#/?session=no-such-session`);
    await page.getByText('That session is not on this computer any more, so here are your sessions.').waitFor();
    await page.goto(
      `${suite.runtime.appOrigin}/${routeHash({ kind: 'output', sessionId, runId: row.runId, commandId: 'no-such-command', at: null })}`,
    );
    await page.getByText('That output is not on this computer any more, so here are your sessions.').waitFor();
    expect(await hashOf(page)).toBe('#/');
    expect(errors).toEqual([]);
  }, 120_000);
});
