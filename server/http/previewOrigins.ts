/**
 * Where previews live (ORG-2, ORG-3): by default one origin per preview, a subdomain of the app
 * host (`http://p-<id>.hbcode.localhost:PORT`), so previews are isolated from the app and from
 * each other. Behind a tunnel that gives one HTTPS name, one shared preview origin on another port
 * is isolated from the app but not from other previews; there the path carries the id
 * (`/p-<id>/…`).
 */
export type PreviewOrigins =
  | { kind: 'per-preview'; /** e.g. http://p-{id}.hbcode.localhost:8787 */ template: string }
  | { kind: 'shared'; origin: string };

export const PREVIEW_ID_PLACEHOLDER = '{id}';

const ID_PATTERN = '[0-9a-f]{32}';

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The origin that serves `previewId`. */
export function previewOriginOf(config: PreviewOrigins, previewId: string): string {
  return config.kind === 'shared'
    ? config.origin
    : new URL(config.template.replace(PREVIEW_ID_PLACEHOLDER, previewId)).origin;
}

/** Where the preview's document path starts on its origin: `/` alone, or `/p-<id>/` when shared. */
export function previewPathPrefix(config: PreviewOrigins, previewId: string): string {
  return config.kind === 'shared' ? `/p-${previewId}/` : '/';
}

/**
 * Which preview a Host header names: `{ previewId }` for a per-preview origin, `{ previewId: null }`
 * for the shared one, or null when it is not a preview origin at all.
 */
export function matchPreviewHost(config: PreviewOrigins, hostHeader: string): { previewId: string | null } | null {
  const host = hostHeader.toLowerCase();
  if (config.kind === 'shared') return host === new URL(config.origin).host ? { previewId: null } : null;
  const probe = new URL(config.template.replace(PREVIEW_ID_PLACEHOLDER, 'a'.repeat(32)));
  const pattern = new RegExp('^' + escapeRegExp(probe.host).replace('a'.repeat(32), `(${ID_PATTERN})`) + '$');
  const match = pattern.exec(host);
  return match ? { previewId: match[1]! } : null;
}

/** The app's CSP `frame-src`: only preview origins may be framed by the app. */
export function previewFrameSource(config: PreviewOrigins): string {
  if (config.kind === 'shared') return config.origin;
  const probe = new URL(config.template.replace(PREVIEW_ID_PLACEHOLDER, 'a'.repeat(32)));
  const [, ...parent] = probe.hostname.split('.');
  return `${probe.protocol}//*.${parent.join('.')}${probe.port ? ':' + probe.port : ''}`;
}
