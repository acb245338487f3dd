import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AGENT_INSTALL_TIMEOUT_MS, AGENT_TEST_TIMEOUT_MS, installedAgents } from '../fixtures/agentPackages';
import { claudeEnv, claudeTurnScript } from '../fixtures/fakeClaudeModel';
import { waitUntil } from '../fixtures/waitUntil';
import {
  commandRow,
  createShellSession,
  DESKTOP_CONTEXT,
  keepLightAndDark,
  newPairingCode,
  PHONE_CONTEXT,
  waitCommandFinished,
} from './appHarness';
import { pairedPage, useModelAppSuite } from './appSuite';

// UX-9 and UX-10 in real Chromium against the real runtime and the real Claude Code: voice input
// through a scripted SpeechRecognition the test installs in the page, and the slash-command list
// of a Claude session whose project has a command of its own.

/** What the page's scripted recognizer lets the test do (installed by `installScriptedSpeech`). */
interface ScriptedSpeech {
  listening: boolean;
  /** Recognised words: interim ones first, a final phrase when `final`. */
  hear(words: string, final: boolean): void;
  /** A failure as the browser reports it, then the end. */
  fail(code: string): void;
}

/** Replaces the browser's speech recognition with one the test drives (runs in the page before the app). */
function installScriptedSpeech(): void {
  const scope = window as unknown as Record<string, unknown>;
  delete scope.webkitSpeechRecognition;
  /** The recognizer listening now, if any (at most one). */
  const listening: ScriptedRecognizer[] = [];
  class ScriptedRecognizer {
    lang = '';
    continuous = false;
    interimResults = false;
    onresult: ((event: unknown) => void) | null = null;
    onerror: ((event: { error: string }) => void) | null = null;
    onend: (() => void) | null = null;
    start() {
      listening.splice(0, listening.length, this);
      speech.listening = true;
    }
    stop() {
      if (listening[0] !== this) return;
      listening.length = 0;
      speech.listening = false;
      this.onend?.();
    }
    abort() {
      this.stop();
    }
  }
  const speech: ScriptedSpeech = {
    listening: false,
    hear(words, final) {
      const result = Object.assign([{ transcript: words, confidence: 0.9 }], { isFinal: final });
      listening[0]?.onresult?.({ resultIndex: 0, results: [result] });
    },
    fail(code) {
      const failing = listening[0];
      failing?.onerror?.({ error: code });
      failing?.stop();
    },
  };
  scope.SpeechRecognition = ScriptedRecognizer;
  scope.scriptedSpeech = speech;
}

function removeSpeech(): void {
  const scope = window as unknown as Record<string, unknown>;
  delete scope.SpeechRecognition;
  delete scope.webkitSpeechRecognition;
}

const speech = (page: Page) => ({
  hear: (words: string, final: boolean) =>
    page.evaluate(([w, f]) => (window as unknown as { scriptedSpeech: ScriptedSpeech }).scriptedSpeech.hear(w, f), [
      words,
      final,
    ] as const),
  fail: (code: string) =>
    page.evaluate((c) => (window as unknown as { scriptedSpeech: ScriptedSpeech }).scriptedSpeech.fail(c), code),
  listening: () =>
    page.evaluate(() => (window as unknown as { scriptedSpeech: ScriptedSpeech }).scriptedSpeech.listening),
});

const messageBox = (page: Page) => page.getByRole('textbox', { name: 'Message' });
const micButton = (page: Page) => page.getByRole('button', { name: /voice input/i });
const voiceStatus = (page: Page) => page.locator('.voice-status');
const commandOptions = (page: Page) => page.getByRole('listbox', { name: 'Commands' }).getByRole('option');
/** The screen in light and dark, kept as `composer-<name>-light.png` and `-dark.png`. */
const lightAndDark = (page: Page, name: string) => keepLightAndDark(page, 'composer', name);

/** A page of its own, paired, with `init` run before the app on every load. */
async function pageWith(suite: Parameters<typeof pairedPage>[0], phone: boolean, init: () => void): Promise<Page> {
  const page = await pairedPage(
    suite,
    { ...(phone ? PHONE_CONTEXT : DESKTOP_CONTEXT), colorScheme: 'light' },
    await newPairingCode(suite.runtime),
  );
  await page.context().addInitScript(init);
  await page.reload();
  page.setDefaultTimeout(60_000);
  return page;
}

async function newSession(page: Page, agent: 'claude' | 'shell'): Promise<void> {
  if (await page.getByRole('button', { name: 'Back to sessions' }).isVisible())
    await page.getByRole('button', { name: 'Back to sessions' }).click();
  if (agent === 'shell') return createShellSession(page);
  await page.getByLabel('Agent').first().selectOption(agent);
  await page.getByRole('button', { name: 'New session' }).first().click();
  await messageBox(page).waitFor();
}

describe("UX-9 UX-10 the composer: voice input and the agent's slash commands", () => {
  const configDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hbcode-claude-config-'));
  const suite = useModelAppSuite(
    claudeTurnScript(() => ({ message: 'Notes written.' })),
    {
      runtime: ({ modelUrl, projectDir }) => {
        const commands = path.join(projectDir, '.claude', 'commands');
        fs.mkdirSync(commands, { recursive: true });
        fs.writeFileSync(
          path.join(commands, 'ship-notes.md'),
          '---\ndescription: Write the release notes\nargument-hint: <version>\n---\nWrite the release notes for version $ARGUMENTS.\n',
        );
        return { env: claudeEnv(modelUrl, configDir, installedAgents().claudeBin) };
      },
      timeoutMs: AGENT_INSTALL_TIMEOUT_MS,
    },
  );
  let phone: Page;
  let desktop: Page;

  beforeAll(async () => {
    phone = await pageWith(suite, true, installScriptedSpeech);
    desktop = await pageWith(suite, false, installScriptedSpeech);
  }, 120_000);
  afterAll(() => fs.rmSync(configDir, { recursive: true, force: true }));

  it(
    'UX-9 spoken words land at the caret with the interim words shown, stay editable, are sent only by Send, and listening states are said in words',
    async () => {
      await newSession(phone, 'shell');
      const mic = micButton(phone);
      const box = (await mic.boundingBox())!;
      expect(box.width).toBeGreaterThanOrEqual(44);
      expect(box.height).toBeGreaterThanOrEqual(44);
      // The message box keeps room beside attach, microphone and Send at 390 px, and nothing leaves the screen.
      expect((await messageBox(phone).boundingBox())!.width).toBeGreaterThan(150);
      for (const name of ['Attach', 'Voice input', 'Send'])
        expect((await phone.getByRole('button', { name, exact: true }).boundingBox())!.x + 44).toBeLessThanOrEqual(390);

      await messageBox(phone).fill('echo');
      await mic.click();
      expect(await micButton(phone).getAttribute('aria-pressed')).toBe('true');
      await waitUntil(() => speech(phone).listening(), 'the recognizer starts');
      await speech(phone).hear('hello wor', false);
      await voiceStatus(phone).filter({ hasText: 'Listening…' }).filter({ hasText: 'hello wor' }).waitFor();
      expect(await messageBox(phone).inputValue()).toBe('echo');
      await lightAndDark(phone, 'voice-phone');
      await speech(phone).hear('hello world', true);
      await waitUntil(
        async () => (await messageBox(phone).inputValue()) === 'echo hello world',
        'the phrase lands after the text',
      );

      // The caret moved back to after "echo": the next phrase goes there. The app places its caret
      // after a phrase in the next frame; a frame asked for now runs after that one.
      await messageBox(phone).evaluate(
        (area: HTMLTextAreaElement) =>
          new Promise<void>((resolve) =>
            requestAnimationFrame(() => {
              area.setSelectionRange(4, 4);
              resolve();
            }),
          ),
      );
      await speech(phone).hear('big', true);
      await waitUntil(
        async () => (await messageBox(phone).inputValue()) === 'echo big hello world',
        'the phrase lands at the caret',
      );
      await phone.getByRole('button', { name: 'Stop voice input' }).click();
      await voiceStatus(phone).filter({ hasText: 'Voice input stopped' }).waitFor();
      expect(await speech(phone).listening()).toBe(false);
      expect(await commandRow(phone, 'echo big hello world').count()).toBe(0);

      await messageBox(phone).press('End');
      await messageBox(phone).pressSequentially(' again');
      await phone.getByRole('button', { name: 'Send', exact: true }).click();
      expect(await waitCommandFinished(phone, 'echo big hello world again')).toBe('exit 0');
      expect(await voiceStatus(phone).count()).toBe(0);

      await micButton(phone).click();
      await waitUntil(() => speech(phone).listening(), 'the recognizer starts again');
      await speech(phone).fail('not-allowed');
      await phone.getByRole('alert').filter({ hasText: 'Microphone permission was denied' }).waitFor();
      expect(await micButton(phone).getAttribute('aria-pressed')).toBe('false');

      // The page going to the background stops listening.
      await micButton(phone).click();
      await waitUntil(() => speech(phone).listening(), 'the recognizer starts once more');
      await phone.evaluate(() => {
        Object.defineProperty(document, 'visibilityState', { value: 'hidden', configurable: true });
        document.dispatchEvent(new Event('visibilitychange'));
      });
      expect(await speech(phone).listening()).toBe(false);
      await voiceStatus(phone).filter({ hasText: 'Voice input stopped' }).waitFor();
      await phone.evaluate(() => {
        Object.defineProperty(document, 'visibilityState', { value: 'visible', configurable: true });
      });

      await newSession(desktop, 'shell');
      await micButton(desktop).click();
      await speech(desktop).hear('ls -la', false);
      await voiceStatus(desktop).filter({ hasText: 'ls -la' }).waitFor();
      await lightAndDark(desktop, 'voice-desktop');
      await desktop.getByRole('button', { name: 'Stop voice input' }).click();
    },
    AGENT_TEST_TIMEOUT_MS,
  );

  it(
    'UX-9 where the browser has no speech recognition there is no microphone button',
    async () => {
      const bare = await pageWith(suite, true, removeSpeech);
      await newSession(bare, 'shell');
      await bare.getByRole('button', { name: 'Send', exact: true }).waitFor();
      expect(await micButton(bare).count()).toBe(0);
      await bare.context().close();
    },
    AGENT_TEST_TIMEOUT_MS,
  );

  it(
    'UX-10 `/` in a Claude session lists its commands with descriptions, typing filters them, a tap fills the composer and the command is sent as typed',
    async () => {
      await newSession(phone, 'claude');
      await messageBox(phone).fill('/');
      await commandOptions(phone).first().waitFor();
      const all = await commandOptions(phone).allTextContents();
      expect(
        all.some((text) => text.startsWith('/ship-notes <version>') && text.includes('Write the release notes')),
      ).toBe(true);
      expect(all.some((text) => text.startsWith('/compact'))).toBe(true);
      await lightAndDark(phone, 'commands-all-phone');

      await messageBox(phone).pressSequentially('shi');
      await waitUntil(async () => (await commandOptions(phone).count()) < all.length, 'the list narrows');
      const narrowed = await commandOptions(phone).allTextContents();
      expect(narrowed[0]).toMatch(/^\/ship-notes/);
      expect(narrowed.every((text) => /^\/\S*shi/i.test(text))).toBe(true);
      await lightAndDark(phone, 'commands-phone');

      await commandOptions(phone).first().tap();
      expect(await messageBox(phone).inputValue()).toBe('/ship-notes ');
      expect(await commandOptions(phone).count()).toBe(0);
      await messageBox(phone).pressSequentially('2.4.0');
      await phone.getByRole('button', { name: 'Send', exact: true }).click();
      await phone.locator('[data-row="agentText"]').filter({ hasText: 'Notes written.' }).waitFor({ timeout: 120_000 });
      const sent = suite.model.requests.map((r) => JSON.stringify(r.body)).join('\n');
      expect(sent).toContain('Write the release notes for version 2.4.0.');
    },
    AGENT_TEST_TIMEOUT_MS,
  );

  it(
    'UX-10 on a desktop ↑ ↓ and Enter choose a command and Esc closes the list',
    async () => {
      await newSession(desktop, 'claude');
      await messageBox(desktop).click();
      await messageBox(desktop).pressSequentially('/co');
      await commandOptions(desktop).nth(1).waitFor();
      const names = (await commandOptions(desktop).allTextContents()).map((text) => /^\/(\S+)/.exec(text)![1]);
      expect(await commandOptions(desktop).nth(0).getAttribute('aria-selected')).toBe('true');
      await messageBox(desktop).press('ArrowDown');
      await waitUntil(
        async () => (await commandOptions(desktop).nth(1).getAttribute('aria-selected')) === 'true',
        'the second command is active',
      );
      await lightAndDark(desktop, 'commands-desktop');
      await messageBox(desktop).press('ArrowUp');
      await messageBox(desktop).press('ArrowDown');
      await messageBox(desktop).press('Enter');
      expect(await messageBox(desktop).inputValue()).toBe(`/${names[1]} `);
      expect(await desktop.locator('[data-row="message"]').count()).toBe(0);

      await messageBox(desktop).fill('/');
      await commandOptions(desktop).first().waitFor();
      await messageBox(desktop).press('Escape');
      expect(await commandOptions(desktop).count()).toBe(0);
      expect(await messageBox(desktop).inputValue()).toBe('/');
    },
    AGENT_TEST_TIMEOUT_MS,
  );
});
