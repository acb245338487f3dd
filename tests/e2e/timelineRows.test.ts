import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIRST_DIFF_LINES } from '../../components/timeline/diff/diffPaging';
import type { TimelineRow } from '../../lib/protocol/rows';
import { connectChromium } from '../fixtures/sharedChromium';
import { waitUntil } from '../fixtures/waitUntil';
import {
  everyRowKind,
  FIXTURE_COMMAND,
  LONG_DIFF_ITEM_ID,
  LONG_RESULT_ITEM_ID,
  PLAN_ITEM_ID,
  RUNNING_RUN_ID,
  SUBAGENT_ITEM_ID,
} from './timeline/timelineFixture';
import { openTimelinePage } from './timeline/timelinePageHarness';
import { fixtureCalls, pushRow, rowsInView } from './timeline/timelinePageQueries';
import { scrollRowIntoView } from './appHarness';

const DESKTOP = { viewport: { width: 1280, height: 800 } };
const fixture = everyRowKind();
const rowOf = <K extends TimelineRow['kind']>(kind: K, itemId?: string) =>
  fixture.rows.find(
    (r): r is Extract<TimelineRow, { kind: K }> =>
      r.kind === kind && (itemId === undefined || ('itemId' in r && r.itemId === itemId)),
  )!;

/** Scrolls the row with this id into view (the list is virtualized: rows far away are not in the page). */
async function showRow(page: Page, id: string) {
  const row = page.locator(`.timeline-item[data-row-id="${id}"]`);
  await waitUntil(async () => {
    if ((await row.count()) > 0) return true;
    const order = fixture.rows.findIndex((r) => r.id === id);
    const first = (await rowsInView(page))[0];
    const firstIndex = fixture.rows.findIndex((r) => r.id === first);
    await page.evaluate((down) => {
      const box = document.querySelector('[data-testid="timeline"]');
      box?.scrollBy(0, (down ? 0.8 : -0.8) * box.clientHeight);
    }, order > firstIndex);
    return false;
  }, `row ${id} is rendered`);
  await scrollRowIntoView(row);
  return row;
}

describe('TL-1 the timeline shows every row kind', () => {
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    browser = await connectChromium();
    ({ page } = await openTimelinePage(browser, DESKTOP));
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
  });

  it('TL-4 opens at the newest rows', async () => {
    const newest = fixture.rows.at(-1)!.id;
    await waitUntil(async () => (await rowsInView(page)).includes(newest), 'the newest row is in view');
    expect(await rowsInView(page)).not.toContain(fixture.rows[0]!.id);
  });

  it('TL-1 agent text is Markdown without raw HTML; its code is highlighted', async () => {
    const row = await showRow(page, rowOf('agentText').id);
    expect(await row.locator('strong').first().textContent()).toBe('once');
    expect(await row.locator('table td').first().textContent()).toBe('src/app.ts');
    expect(await row.locator('[data-raw-html]').count()).toBe(0);
    await row.locator('code[data-highlighted="true"]').waitFor();
  });

  it('TL-1 reasoning is collapsed until opened', async () => {
    const row = await showRow(page, rowOf('reasoning').id);
    const full = row.getByText('so the fix is to read the clock once', { exact: false });
    expect(await full.isVisible()).toBe(false);
    await row.locator('summary').click();
    await full.waitFor({ state: 'visible' });
  });

  it('TL-1 the plan is a checklist updated in place', async () => {
    const plan = rowOf('plan', PLAN_ITEM_ID);
    const row = await showRow(page, plan.id);
    expect(await row.textContent()).toContain('1 of 3 done');
    expect(await row.locator('[data-plan-status="inProgress"]').textContent()).toContain(
      'Read it once and pass it down',
    );
    await pushRow(page, {
      ...plan,
      source: 'live',
      entries: plan.entries.map((e) => ({ ...e, status: 'completed' as const })),
    });
    await waitUntil(async () => (await row.textContent())?.includes('3 of 3 done'), 'the plan shows every step done');
    expect(await page.locator('[data-row="plan"]').count()).toBe(1);
    expect(await row.locator('[data-plan-status="completed"]').count()).toBe(3);
  });

  it('TL-1 a file change shows each file with its counts and a highlighted diff; a binary file says so', async () => {
    const row = await showRow(page, rowOf('fileChange', 'edit-1').id);
    const file = row.locator('[data-file="src/app.ts"]');
    expect(await file.getByLabel('2 lines added').textContent()).toBe('+2');
    expect(await file.getByLabel('2 lines removed').textContent()).toBe('−2');
    expect(await file.locator('[data-diff-line="added"]').count()).toBe(2);
    expect(await file.locator('[data-diff-line="removed"]').count()).toBe(2);
    await waitUntil(() => file.locator('.diff-text span[style*="color"]').count(), 'the diff is highlighted');
    expect(await row.locator('[data-file="assets/logo.png"]').textContent()).toContain('Binary file');
  });

  it('TL-1 a 5,000-line diff shows its first lines and pages on to the last, reading the rest through sessions.itemText: nothing cut', async () => {
    const row = await showRow(page, rowOf('fileChange', LONG_DIFF_ITEM_ID).id);
    const lines = row.locator('[data-diff-line]');
    expect(await lines.count()).toBe(FIRST_DIFF_LINES);
    const more = row.getByRole('button', { name: /^Show \d+ more of [\d,]+ lines$|^Read more/ });
    for (let step = 0; step < 40 && (await more.count()) > 0; step++) {
      const before = await lines.count();
      await more.click();
      await waitUntil(
        async () => (await lines.count()) > before || (await row.getByRole('button', { name: /^Show/ }).count()) > 0,
        'more diff lines show',
      );
    }
    expect(await more.count()).toBe(0);
    // 5,000 lines of the file, every fifth replaced (a removed and an added line).
    expect(await row.locator('[data-diff-line="added"]').count()).toBe(1000);
    expect(await row.locator('[data-diff-line="removed"]').count()).toBe(1000);
    expect(await row.locator('[data-diff-line="context"]').count()).toBe(4000);
    const reads = (await fixtureCalls(page)).filter(
      (c) => c.method === 'sessions.itemText' && c.params.itemId === LONG_DIFF_ITEM_ID,
    );
    expect(reads.length).toBeGreaterThan(0);
    expect(reads.every((c) => c.params.field === 'files.0.diff' && Number(c.params.length) <= 256 * 1024)).toBe(true);
    // Collapsed again, so the rows after it are a short scroll away.
    await row.locator('.file-diff-header').click();
    expect(await lines.count()).toBe(0);
  }, 240_000);

  it('TL-1 a tool call shows its result in place; a 10 MiB result is paged and read on slice by slice', async () => {
    const read = await showRow(page, rowOf('toolCall', 'read-1').id);
    expect(await read.locator('[data-status]').textContent()).toBe('done');
    expect(await read.getByLabel('Result of Read src/app.ts').textContent()).toContain(
      'return { start: Date.now(), end: Date.now() };',
    );
    const failed = await showRow(page, rowOf('toolCall', 'mcp-1').id);
    expect(await failed.textContent()).toContain('The docs server is not running.');

    const long = await showRow(page, rowOf('toolCall', LONG_RESULT_ITEM_ID).id);
    const result = long.getByLabel('Result of Search "value" in src/generated');
    expect((await result.textContent())!.split('\n')).toHaveLength(6);
    expect(await long.textContent()).toContain('10.0 MiB in all');
    const show = long.getByRole('button', { name: /^Show \d+ more of [\d,]+ lines$/ });
    for (let step = 0; step < 10 && (await show.count()) > 0; step++) await show.click();
    await long.getByRole('button', { name: /^Read more \(.* left\)$/ }).click();
    await waitUntil(
      async () =>
        (await fixtureCalls(page)).some(
          (c) =>
            c.method === 'sessions.itemText' &&
            c.params.itemId === LONG_RESULT_ITEM_ID &&
            c.params.offset === 64 * 1024,
        ),
      'the next slice is read from where the inline text ends',
    );
    await long.getByRole('button', { name: /^Show \d+ more of [\d,]+ lines$/ }).waitFor();
    // The page shows at most what was asked for: the rest waits behind its buttons.
    expect((await result.textContent())!.length).toBeLessThan(1024 * 1024);
  });

  it('TL-1 a command shows the last lines of its output on its card', async () => {
    const row = await showRow(page, rowOf('command').id);
    const tail = row.getByLabel('Last lines of the output');
    await tail.waitFor();
    expect((await tail.textContent())!.split('\n').at(-1)).toBe('      Tests  40 passed (40)');
    expect(await row.textContent()).toContain(`$ ${FIXTURE_COMMAND}`);
  });

  it('TL-1 a subagent opens its own timeline (sessions.timeline with parentItemId) and Back returns', async () => {
    const row = await showRow(page, rowOf('subagent', SUBAGENT_ITEM_ID).id);
    await row.getByRole('button', { name: 'Open its timeline' }).click();
    await page.getByText('Search "Date.now" in src').waitFor();
    expect(
      (await fixtureCalls(page)).some(
        (c) => c.method === 'sessions.timeline' && c.params.parentItemId === SUBAGENT_ITEM_ID,
      ),
    ).toBe(true);
    expect(await page.getByRole('heading', { name: 'Explore how the clock is used' }).count()).toBe(1);
    expect(await page.getByRole('textbox', { name: 'Message' }).count()).toBe(0);
    await page.getByRole('button', { name: 'Back to the parent timeline' }).click();
    await page.getByRole('heading', { name: fixture.session.title }).waitFor();
    // The browser's own Back returns from the subagent to its parent too, and Forward shows it again (UX-1).
    const address = page.url();
    await row.getByRole('button', { name: 'Open its timeline' }).click();
    await page.getByRole('heading', { name: 'Explore how the clock is used' }).waitFor();
    await page.goBack();
    await page.getByRole('heading', { name: fixture.session.title }).waitFor();
    expect(page.url()).toBe(address);
    await page.goForward();
    await page.getByRole('heading', { name: 'Explore how the clock is used' }).waitFor();
    await page.getByRole('button', { name: 'Back to the parent timeline' }).click();
    await page.getByRole('heading', { name: fixture.session.title }).waitFor();
    expect(page.url()).toBe(address);
  });

  it('TL-1 turn end, compaction, agent error and raw rows say what happened', async () => {
    const turn = await showRow(page, rowOf('turnEnd').id);
    const text = await turn.textContent();
    for (const part of [
      'Turn completed',
      '18.4 s',
      '12,480 in (9,216 cached)',
      '1,932 out (640 reasoning) tokens',
      '$0.04',
    ])
      expect(text).toContain(part);
    expect(await (await showRow(page, rowOf('compaction').id)).textContent()).toContain('Context compacted');
    const error = await showRow(page, rowOf('agentError').id);
    expect(await error.textContent()).toContain('Rate limited: retrying in 20 s.');
    expect(await error.textContent()).toContain('retry-after: 20');
    const raw = await showRow(page, rowOf('rawItem').id);
    expect(await raw.textContent()).toContain('codex/event/unknown_kind');
    expect(await raw.textContent()).toContain('"payload":{"a":1');
  });

  it('ACC-3 a failed message says why and offers the fix; a stalled running one says so and Stop cancels it', async () => {
    const failed = await showRow(page, 'm:run-2');
    expect(await failed.textContent()).toContain('Codex is signed out on this computer.');
    expect(await failed.getByRole('link', { name: 'Sign in to Codex' }).getAttribute('href')).toBe('#/accounts');

    const running = await showRow(page, `m:${RUNNING_RUN_ID}`);
    const stalled = /^No activity for (\d+) min$/.exec((await running.getByRole('status').textContent()) ?? '');
    expect(Number(stalled?.[1])).toBeGreaterThanOrEqual(4);
    await running.getByRole('button', { name: 'Stop' }).click();
    await waitUntil(
      async () => (await running.locator('[data-message-state]').textContent()) === 'cancelled',
      'the message says cancelled',
    );
    expect((await fixtureCalls(page)).filter((c) => c.method === 'run.cancel')).toEqual([
      { method: 'run.cancel', params: { sessionId: fixture.session.id, runId: RUNNING_RUN_ID } },
    ]);
    expect(await running.getByRole('status').count()).toBe(0);
  });
});
