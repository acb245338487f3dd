import type { BrowserContextOptions, Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  commandRow,
  DESKTOP_CONTEXT,
  newPairingCode,
  pairThroughLink,
  PHONE_CONTEXT,
  screenshotPath,
  startupPairingCode,
  waitCommandFinished,
  waitConnected,
} from './appHarness';
import { pairedPage, seedShellSession, useAppSuite } from './appSuite';
import { waitUntil } from '../fixtures/waitUntil';

const SESSION_TITLE = 'Build and test';
const LONG_WORD = 'x'.repeat(240);
/** Seeded commands: many lines, one line far wider than a phone, and a failure on stderr. */
const SEEDED_COMMANDS = [
  `for i in $(seq 1 60); do echo "line $i of the build output"; done`,
  `echo ${LONG_WORD}`,
  'ls /no-such-folder-here',
];
const MIN_TARGET_PX = 44;

/** The list entry that opens the seeded session (not its Delete icon, named after it too). */
const sessionButton = (page: Page) =>
  page.getByRole('button', { name: SESSION_TITLE }).filter({ hasText: SESSION_TITLE });

interface LayoutFacts {
  viewportWidth: number;
  scrollWidth: number;
  /** Controls smaller than a fingertip: "button 'Sign out' 40x30". */
  smallTargets: string[];
}

/** Width overflow of the document and the size of every visible control. */
function layoutFacts(page: Page): Promise<LayoutFacts> {
  return page.evaluate((min) => {
    const smallTargets: string[] = [];
    for (const el of document.querySelectorAll<HTMLElement>('button, input, select, textarea, a[href]')) {
      const r = el.getBoundingClientRect();
      if (r.width === 0 || r.height === 0 || getComputedStyle(el).visibility === 'hidden') continue;
      const name = el.getAttribute('aria-label') ?? el.textContent?.trim().slice(0, 30) ?? '';
      if (r.height < min - 0.5 || r.width < min - 0.5)
        smallTargets.push(`${el.tagName.toLowerCase()} '${name}' ${Math.round(r.width)}x${Math.round(r.height)}`);
    }
    return { viewportWidth: window.innerWidth, scrollWidth: document.documentElement.scrollWidth, smallTargets };
  }, MIN_TARGET_PX);
}

interface Colours {
  background: string;
  text: string;
}
const pageColours = (page: Page): Promise<Colours> =>
  page.evaluate(() => {
    const style = getComputedStyle(document.body);
    return { background: style.backgroundColor, text: style.color };
  });

/** Relative luminance of an `rgb(…)` colour, 0 (black) to 1 (white). */
function luminance(colour: string): number {
  const [r, g, b] = (colour.match(/\d+(\.\d+)?/g) ?? []).slice(0, 3).map((c) => {
    const s = Number(c) / 255;
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
}
const contrast = (a: string, b: string) => {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi! + 0.05) / (lo! + 0.05);
};

describe('PWA-5 one-handed on a phone, usable on a desktop, light and dark', () => {
  const suite = useAppSuite();

  beforeAll(async () => {
    // A session with finished commands to look at, made over the protocol like any other client.
    await seedShellSession(suite.runtime, SESSION_TITLE, SEEDED_COMMANDS);
  });

  const screens: { device: string; options: BrowserContextOptions; code: () => Promise<string> }[] = [
    { device: 'phone', options: PHONE_CONTEXT, code: async () => startupPairingCode(suite.runtime) },
    { device: 'desktop', options: DESKTOP_CONTEXT, code: () => newPairingCode(suite.runtime) },
  ];

  for (const { device, options, code } of screens) {
    it(`PWA-5 ${device} ${options.viewport!.width}x${options.viewport!.height}: sessions, timeline and output fit the width, every control is at least 44 px, light and dark differ (screenshots)`, async () => {
      const { runtime, browser } = suite;
      const context = await browser.newContext(options);
      const page = await context.newPage();
      const width = options.viewport!.width;
      const checkLayout = async (screen: string) => {
        for (const colorScheme of ['light', 'dark'] as const) {
          await page.emulateMedia({ colorScheme });
          await page.screenshot({ path: screenshotPath(`${device}-${screen}-${colorScheme}`) });
          const facts = await layoutFacts(page);
          // Soft: one screen's fault still leaves the screenshots and facts of the others.
          expect.soft(facts.viewportWidth, `${screen} ${colorScheme}`).toBe(width);
          expect
            .soft(facts.scrollWidth, `${screen} ${colorScheme}: nothing overflows sideways`)
            .toBeLessThanOrEqual(width);
          expect.soft(facts.smallTargets, `${screen} ${colorScheme}: controls under ${MIN_TARGET_PX} px`).toEqual([]);
        }
        await page.emulateMedia({ colorScheme: 'light' });
        const light = await pageColours(page);
        await page.emulateMedia({ colorScheme: 'dark' });
        const dark = await pageColours(page);
        expect(dark.background, `${screen}: dark background`).not.toBe(light.background);
        expect(luminance(dark.background), `${screen}: the dark theme is dark`).toBeLessThan(
          luminance(light.background),
        );
        expect(contrast(light.text, light.background), `${screen}: light text contrast`).toBeGreaterThanOrEqual(4.5);
        expect(contrast(dark.text, dark.background), `${screen}: dark text contrast`).toBeGreaterThanOrEqual(4.5);
        await page.emulateMedia({ colorScheme: 'light' });
      };
      try {
        await pairThroughLink(page, runtime.appOrigin, await code());
        const openSession = sessionButton(page);
        await openSession.waitFor();
        await checkLayout('sessions');
        // The names are what a person looks for: the controls beside them must not squeeze them away.
        const names = await page.evaluate((title) => {
          const shown = (el: Element | undefined) => (el ? { visible: el.clientWidth, needed: el.scrollWidth } : null);
          const titleEl = [...document.querySelectorAll('button span')].find((el) => el.textContent === title);
          return { title: shown(titleEl), project: shown(document.querySelector('section h2') ?? undefined) };
        }, SESSION_TITLE);
        expect(names.title, 'the session title is shown whole').toEqual({
          visible: names.title!.needed,
          needed: names.title!.needed,
        });
        expect(names.project!.visible, 'the project name gets at least 120 px').toBeGreaterThanOrEqual(
          Math.min(120, names.project!.needed),
        );

        await openSession.click();
        for (const command of SEEDED_COMMANDS) await commandRow(page, command).waitFor();
        await checkLayout('timeline');

        await commandRow(page, SEEDED_COMMANDS[1]!).click();
        await page.getByTestId('output').getByText(LONG_WORD).waitFor();
        await checkLayout('output-long-line');
        await page.getByRole('button', { name: 'Back to timeline' }).click();

        await commandRow(page, SEEDED_COMMANDS[0]!).click();
        // A finished command opens at its end (UX-1).
        await page.getByTestId('output').getByText('line 60 of the build output', { exact: true }).waitFor();
        await checkLayout('output');
      } finally {
        await context.close();
      }
    });
  }

  /** Presses Tab until the focused element's accessible name matches; never clicks. */
  async function tabTo(page: Page, description: string, matches: (name: string) => boolean): Promise<void> {
    for (let presses = 0; presses < 40; presses++) {
      await page.keyboard.press('Tab');
      const name = await page.evaluate(() => {
        const el = document.activeElement;
        if (!el || el === document.body) return '';
        return (el.getAttribute('aria-label') ?? el.textContent ?? '').trim();
      });
      if (matches(name)) return;
    }
    throw new Error(`Tab never reached ${description}`);
  }

  /** The focused control shows a visible focus ring (keyboard users must see where they are). */
  const focusRing = (page: Page) =>
    page.evaluate(() => {
      const style = getComputedStyle(document.activeElement!);
      return style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) >= 2;
    });

  it('PWA-5 the main flow works from the keyboard alone: pair, open a session, send a command with Enter, read its output, go back', async () => {
    const { runtime, browser } = suite;
    const context = await browser.newContext(DESKTOP_CONTEXT);
    const page = await context.newPage();
    try {
      const code = await newPairingCode(runtime);
      await page.goto(`${runtime.appOrigin}/pair#code=${encodeURIComponent(code)}`);
      await waitUntil(
        async () => (await page.getByLabel('Pairing code').inputValue()) === code,
        'the link fills in the code',
      );
      await tabTo(page, '"Pair"', (name) => name === 'Pair');
      expect(await focusRing(page)).toBe(true);
      await page.keyboard.press('Enter');
      await waitConnected(page);

      await tabTo(page, '"New session"', (name) => name === 'New session');
      expect(await focusRing(page)).toBe(true);
      await page.keyboard.press('Enter');
      await page.getByRole('textbox', { name: 'Message' }).waitFor();

      await tabTo(page, 'the message box', (name) => name === 'Message');
      const command = 'echo typed-from-the-$((6 * 7))-keyboard';
      await page.keyboard.type(command);
      await page.keyboard.press('Enter');
      expect(await waitCommandFinished(page, command)).toBe('exit 0');

      await tabTo(page, 'the command row', (name) => name.startsWith(`$ ${command}`));
      expect(await focusRing(page)).toBe(true);
      await page.keyboard.press('Enter');
      await page.getByTestId('output').getByText('typed-from-the-42-keyboard', { exact: true }).waitFor();

      await tabTo(page, '"Back to timeline"', (name) => name === 'Back to timeline');
      await page.keyboard.press('Enter');
      await commandRow(page, command).waitFor();
      await tabTo(page, '"Back to sessions"', (name) => name === 'Back to sessions');
      await page.keyboard.press('Enter');
      await page.getByRole('button', { name: 'New session' }).first().waitFor();
    } finally {
      await context.close();
    }
  });

  it('PWA-5 sending from the keyboard: Shift+Enter adds a line, Enter sends', async () => {
    const page = await pairedPage(suite, DESKTOP_CONTEXT, await newPairingCode(suite.runtime));
    try {
      await sessionButton(page).click();
      const box = page.getByRole('textbox', { name: 'Message' });
      await box.focus();
      await page.keyboard.type('echo first');
      await page.keyboard.press('Shift+Enter');
      await page.keyboard.type('echo second');
      expect(await box.inputValue()).toBe('echo first\necho second');
      await page.keyboard.press('Enter');
      await page.locator('[data-row="message"]').filter({ hasText: 'echo second' }).waitFor();
      await waitUntil(async () => (await box.inputValue()) === '', 'the sent message leaves the box');
    } finally {
      await page.context().close();
    }
  });
});
