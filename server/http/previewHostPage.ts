import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/** Built by scripts/build-app.mjs from lib/client/preview/hostPage.ts; a dot name, so the app origin never serves it. */
const HOST_SCRIPT_FILE = '.preview-host.js';

const HOST_STYLE =
  'html,body{margin:0;height:100%;overflow:hidden}iframe{display:block;border:0;width:100%;height:100%}';

const sha256 = (text: string) => `'sha256-${crypto.createHash('sha256').update(text, 'utf8').digest('base64')}'`;

function escapeAttribute(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
}

export interface HostPage {
  html: string;
  contentSecurityPolicy: string;
}

/**
 * The bootstrap page of a preview origin (PRV-5). Its script registers the preview worker, takes
 * the bridge port only from the app origin, then opens the document in an inner frame. Its CSP
 * allows that one script, frames only of its own origin (so the inner frame cannot be navigated
 * off the preview origin), and only the app may frame it.
 */
export function previewHostPage(outDir: string, appOrigin: string): HostPage | null {
  let script: string;
  try {
    script = fs.readFileSync(path.join(outDir, HOST_SCRIPT_FILE), 'utf8');
  } catch {
    return null;
  }
  const html =
    `<!doctype html><html lang="en" data-app-origin="${escapeAttribute(appOrigin)}"><head><meta charset="utf-8">` +
    `<title>Preview</title><style>${HOST_STYLE}</style></head><body><script>${script}</script></body></html>`;
  const contentSecurityPolicy = [
    "default-src 'none'",
    `script-src ${sha256(script)}`,
    `style-src ${sha256(HOST_STYLE)}`,
    "frame-src 'self'",
    "worker-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    `frame-ancestors ${appOrigin}`,
  ].join('; ');
  return { html, contentSecurityPolicy };
}
