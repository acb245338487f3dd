import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routeHash } from '../../lib/client/appRoute';
import { connectChromium } from '../fixtures/sharedChromium';
import {
  CREDENTIAL_FILES,
  makeCredentialHome,
  OUTSIDE_ENV_TEXT,
  PRIVATE_KEY_TEXT,
  type CredentialHome,
} from '../fixtures/credentialHome';
import { startRuntimeProcess, type RuntimeProcess } from '../fixtures/runtimeProcess';
import { keptScreenshotPath, pairThroughLink, PHONE_CONTEXT, startupPairingCode } from './appHarness';

// FILE-6 in real Chromium against the real runtime: the file browser of a home folder served as a
// project shows no credential file and no data folder, and a file kept private says why in words.

const SIZES = [
  { name: 'phone', width: 390, height: 844 },
  { name: 'desktop', width: 1440, height: 900 },
] as const;

async function keepScreenshots(page: Page, name: string): Promise<void> {
  for (const size of SIZES) {
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.setViewportSize({ width: size.width, height: size.height });
      await page.emulateMedia({ colorScheme });
      await page.screenshot({ path: keptScreenshotPath('file', `${name}-${size.name}-${colorScheme}`) });
    }
  }
  await page.setViewportSize(PHONE_CONTEXT.viewport!);
  await page.emulateMedia({ colorScheme: 'light' });
}

describe('FILE-6 files kept private, in the file browser', () => {
  let browser: Browser;
  let home: CredentialHome;
  let runtime: RuntimeProcess;

  beforeAll(async () => {
    browser = await connectChromium();
    home = makeCredentialHome();
    runtime = await startRuntimeProcess({ dataDir: home.dataDir, projectDirs: [home.home] });
  });
  afterAll(async () => {
    await browser?.close();
    await runtime?.stopIfRunning();
    home?.remove();
  });

  it('FILE-6 at phone size: no credential file or data folder is listed, and a refused file says in plain words what it holds and how to allow it', async () => {
    const context = await browser.newContext(PHONE_CONTEXT);
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await pairThroughLink(page, runtime.appOrigin, startupPairingCode(runtime));
    const open = async (filePath: string) =>
      page.goto(`${runtime.appOrigin}/${routeHash({ kind: 'files', projectDirectory: home.home, path: filePath })}`);
    const listed = async (folder: string) => {
      await open(folder);
      const listing = page.getByRole('list', { name: 'Folder contents' });
      await listing.waitFor();
      return listing.locator('a .grow').allTextContents();
    };

    const top = await listed('');
    expect(top).toEqual(
      expect.arrayContaining(['.config', '.local', '.gitignore', '.editorconfig', 'hard-link.txt', 'notes', 'project']),
    );
    const topSecrets = Object.keys(CREDENTIAL_FILES)
      .filter((name) => !name.includes('/'))
      .concat(['.ssh', '.aws', '.kube', '.docker', '.gnupg', '.azure', 'innocent-data', 'innocent-link']);
    expect(top.filter((name) => topSecrets.includes(name))).toEqual([]);
    expect(await listed('.local/share')).not.toContain('hbcode');
    expect(await listed('.config/gh')).toEqual(['config.yml']);

    const privatePanel = page.locator('.private-file[role="alert"]');
    const expectPrivate = async (filePath: string, words: RegExp, option: string, secret: string) => {
      await open(filePath);
      await privatePanel.filter({ hasText: words }).waitFor();
      expect(await privatePanel.locator('.private-file-title').textContent()).toBe(
        ` ${filePath.split('/').pop()} is kept private`,
      );
      expect(await privatePanel.locator('code').textContent()).toBe(option);
      expect(await page.locator('body').textContent()).not.toContain(secret.trim().split('\n')[1] ?? secret.trim());
    };
    await expectPrivate(
      'notes/todo.txt',
      /It starts like a private key./,
      '--allow-secret-files private-key',
      PRIVATE_KEY_TEXT,
    );
    await expectPrivate(
      '.config/gh/hosts.yml',
      /It holds the GitHub CLI's sign-in tokens./,
      '--allow-secret-files gh',
      CREDENTIAL_FILES['.config/gh/hosts.yml']!.text,
    );
    await expectPrivate(
      'hard-link.txt',
      /It has 2 names on this computer \(hard links\)/,
      '--allow-secret-files hardlink',
      OUTSIDE_ENV_TEXT,
    );
    await keepScreenshots(page, 'private-hard-link');

    await open('.local/share/hbcode/vapid-keys.json');
    await privatePanel.filter({ hasText: "the runtime's own data" }).waitFor();
    expect(await privatePanel.locator('code').count()).toBe(0);

    // An ordinary dotfile opens as text.
    await open('.editorconfig');
    await page.locator('.source-lines').filter({ hasText: 'root = true' }).waitFor();
    expect(errors).toEqual([]);
    await context.close();
  }, 120_000);
});
