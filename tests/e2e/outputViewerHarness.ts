// Steps the output viewer's browser tests share (PWA-2, UX-2): a paired page with a shell
// session open, and running a command to open its output.
import type { BrowserContextOptions, Page } from 'playwright-core';
import { expect } from 'vitest';
import { commandRow, createShellSession, sendCommand, waitCommandFinished } from './appHarness';
import { pairedPage, type AppSuite } from './appSuite';

/** The output viewer's scrolling box. */
export const OUTPUT = '[data-testid="output"]';

/** The clipboard permissions a test of Copy grants the app. */
export const CLIPBOARD: string[] = ['clipboard-read', 'clipboard-write'];

/** A page paired with the suite's runtime (its start-up code) with a new shell session open. */
export async function shellSessionPage(
  suite: AppSuite,
  contextOptions: BrowserContextOptions,
  permissions: string[] = [],
): Promise<Page> {
  const page = await pairedPage(suite, contextOptions, undefined, permissions);
  await createShellSession(page);
  return page;
}

/** Opens the output of the command row of `command`. */
export async function openOutput(page: Page, command: string): Promise<void> {
  await commandRow(page, command).click();
  await page.locator(OUTPUT).waitFor();
}

/** Runs a command to a clean exit (within `timeoutMs`, 30 s unless told) and opens its output. */
export async function runAndOpen(page: Page, command: string, timeoutMs?: number): Promise<void> {
  await sendCommand(page, command);
  expect(await waitCommandFinished(page, command, timeoutMs)).toBe('exit 0');
  await openOutput(page, command);
}

export async function backToTimeline(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'Back to timeline' }).click();
}
