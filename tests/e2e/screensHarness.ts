// Measuring and photographing the app's screens (UX-4, PWA-5): sideways overflow and touch
// targets read from the DOM, and screenshots of every screen in docs/screenshots.
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { REPO_ROOT } from '../../server/runtime/paths';

export const MIN_TARGET_PX = 44;

export interface ScreenFacts {
  viewportWidth: number;
  scrollWidth: number;
  /** Controls smaller than a fingertip, as "button 'Sign out' 40x30". */
  smallTargets: string[];
  /** Elements wider than the window that are not inside a box that scrolls them. */
  overflowing: string[];
}

/**
 * Every visible control of the page and what sticks out sideways. A link inside a sentence of
 * rendered Markdown is exempt from the size rule, as WCAG 2.5.8 exempts inline targets: its size
 * is the line's.
 */
export function screenFacts(page: Page): Promise<ScreenFacts> {
  return page.evaluate((min) => {
    const smallTargets: string[] = [];
    const inlineInProse = (el: Element) =>
      el.tagName === 'A' &&
      el.closest('.markdown-view, .markdown') !== null &&
      getComputedStyle(el).display === 'inline';
    for (const el of document.querySelectorAll<HTMLElement>(
      'button, input, select, textarea, a[href], summary, [role="button"]',
    )) {
      const r = el.getBoundingClientRect();
      if (r.width === 0 || r.height === 0 || getComputedStyle(el).visibility === 'hidden' || inlineInProse(el))
        continue;
      const name = el.getAttribute('aria-label') ?? el.textContent?.trim().slice(0, 30) ?? '';
      if (r.height < min - 0.5 || r.width < min - 0.5)
        smallTargets.push(`${el.tagName.toLowerCase()} '${name}' ${Math.round(r.width)}x${Math.round(r.height)}`);
    }
    const overflowing: string[] = [];
    const width = window.innerWidth;
    for (const el of document.body.querySelectorAll('*')) {
      const r = el.getBoundingClientRect();
      if (r.width === 0 || r.right <= width + 0.5) continue;
      // Inside a box that scrolls or clips sideways, it is that box's content, not the page's.
      let clipped = false;
      for (let up = el.parentElement; up && up !== document.body; up = up.parentElement) {
        const x = getComputedStyle(up).overflowX;
        if (x !== 'visible') {
          clipped = up.getBoundingClientRect().right <= width + 0.5;
          break;
        }
      }
      if (!clipped)
        overflowing.push(`${el.tagName.toLowerCase()}.${[...el.classList].join('.')} right=${Math.round(r.right)}`);
    }
    return {
      viewportWidth: width,
      scrollWidth: document.documentElement.scrollWidth,
      smallTargets,
      overflowing: overflowing.slice(0, 10),
    };
  }, MIN_TARGET_PX);
}

/** `docs/screenshots/screen-NAME.png`: the README's Screens section links them. */
export function docsScreenshotPath(name: string): string {
  const dir = path.join(REPO_ROOT, 'docs', 'screenshots');
  fs.mkdirSync(dir, { recursive: true });
  return path.join(dir, `screen-${name}.png`);
}

/** The box of the first element matching `selector`, or null when none is laid out. */
export function boxOf(
  page: Page,
  selector: string,
): Promise<{ left: number; right: number; top: number; bottom: number } | null> {
  return page.evaluate((selector) => {
    const el = document.querySelector(selector);
    if (!el) return null;
    const r = el.getBoundingClientRect();
    return r.width > 0 && r.height > 0 ? { left: r.left, right: r.right, top: r.top, bottom: r.bottom } : null;
  }, selector);
}
