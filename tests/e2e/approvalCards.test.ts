import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Approval } from '../../lib/protocol/agents';
import { connectChromium } from '../fixtures/sharedChromium';
import { waitUntil } from '../fixtures/waitUntil';
import { loadModuleInBlankPage } from './moduleInPage';

const base: Omit<Approval, 'id' | 'kind' | 'command'> = {
  sessionId: 's1',
  runId: 'r1',
  itemId: null,
  reason: null,
  detail: null,
  questions: [],
  suggestions: [],
  createdAt: 1,
  decision: null,
  answers: null,
  expired: null,
};
const APPROVALS: Approval[] = [
  {
    ...base,
    id: 'a-file',
    kind: 'fileChange',
    command: 'src/app.ts',
    detail: '--- a/src/app.ts\n+++ b/src/app.ts\n-old line\n+new line\n',
  },
  {
    ...base,
    id: 'a-perm',
    kind: 'permissions',
    command: 'More permissions: network',
    reason: 'to fetch the docs',
    detail: '{\n  "network": { "enabled": true }\n}',
  },
  {
    ...base,
    id: 'a-tool',
    kind: 'tool',
    command: 'WebFetch https://example.com',
    suggestions: ['Always allow WebFetch for example.com'],
  },
  {
    ...base,
    id: 'a-question',
    kind: 'question',
    command: 'Which colour?',
    questions: [
      {
        id: 'colour',
        header: 'Colour',
        question: 'Which colour?',
        options: [
          { label: 'Red', description: 'warm' },
          { label: 'Blue', description: null },
        ],
        multiSelect: false,
        allowOther: true,
        secret: false,
      },
      {
        id: 'token',
        header: null,
        question: 'Your token?',
        options: [],
        multiSelect: false,
        allowOther: true,
        secret: true,
      },
    ],
  },
  {
    ...base,
    id: 'a-expired',
    kind: 'command',
    command: 'make deploy',
    expired: 'The runtime restarted, so the agent that asked is gone.',
  },
];

/** ACC-4: every kind of approval card, in Chromium, as a device shows and answers it. */
describe('approval cards for every kind', () => {
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    browser = await connectChromium();
    ({ page } = await loadModuleInBlankPage(browser, 'tests/e2e/approvalCardsEntry.ts', 'cards', 'http://cards.test', {
      react: true,
    }));
    await page.evaluate(
      (approvals) => (globalThis as unknown as { cards: { mount(a: unknown): void } }).cards.mount(approvals),
      APPROVALS,
    );
    await page.getByRole('group', { name: 'Approval request' }).first().waitFor();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
  });

  const sent = () => page.evaluate(() => (globalThis as unknown as { cards: { answers: unknown[] } }).cards.answers);
  const card = (kind: string) => page.locator(`[data-row="approval"][data-kind="${kind}"]`);

  it('ACC-4 a file change shows its diff; permissions their detail; answers go with the chosen decision', async () => {
    expect(await card('fileChange').getByLabel('Diff').textContent()).toContain('+new line');
    expect(await card('permissions').getByLabel('Details').textContent()).toContain('"network"');
    await card('fileChange').getByRole('button', { name: 'Allow for this session' }).click();
    await card('permissions').getByRole('button', { name: 'Decline' }).click();
    await waitUntil(async () => (await sent()).length === 2, 'two answers are sent');
    expect(await sent()).toEqual([
      { method: 'approvals.answer', sessionId: 's1', approvalId: 'a-file', decision: 'acceptForSession' },
      { method: 'approvals.answer', sessionId: 's1', approvalId: 'a-perm', decision: 'decline' },
    ]);
  });

  it('ACC-4 a tool offers allow once, allow for this session and deny, with its suggestions', async () => {
    const tool = card('tool');
    expect(await tool.getByRole('list', { name: 'Suggestions' }).textContent()).toContain('Always allow WebFetch');
    expect(await tool.getByRole('button').allTextContents()).toEqual(['Allow once', 'Allow for this session', 'Deny']);
    await tool.getByRole('button', { name: 'Allow once' }).click();
    await waitUntil(async () => (await sent()).length === 3, 'the tool answer is sent');
    expect((await sent())[2]).toEqual({
      method: 'approvals.answer',
      sessionId: 's1',
      approvalId: 'a-tool',
      decision: 'accept',
    });
  });

  it('ACC-4 questions are a small form: Answer waits for every question, a secret is a password field, the answers go by question id', async () => {
    const form = card('question');
    const answer = form.getByRole('button', { name: 'Answer' });
    expect(await answer.isDisabled()).toBe(true);
    await form.getByRole('radio', { name: 'Red' }).check();
    expect(await answer.isDisabled()).toBe(true);
    const secret = form.getByRole('textbox', { name: 'Your token?' }).or(form.getByLabel('Your token?'));
    expect(await secret.getAttribute('type')).toBe('password');
    await secret.fill('tok-123');
    await answer.click();
    await waitUntil(async () => (await sent()).length === 4, 'the question answer is sent');
    expect((await sent())[3]).toEqual({
      method: 'approvals.answer',
      sessionId: 's1',
      approvalId: 'a-question',
      decision: 'accept',
      answers: { colour: ['Red'], token: ['tok-123'] },
    });
  });

  it('ACC-4 an expired approval says why and offers no answer', async () => {
    const expired = card('command');
    expect(await expired.getByRole('status').textContent()).toBe(
      'Expired: The runtime restarted, so the agent that asked is gone.',
    );
    expect(await expired.getByRole('button').count()).toBe(0);
  });
});
