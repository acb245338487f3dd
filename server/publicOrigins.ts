import { parseOrigin } from '../lib/nodeHttp/parseOrigin';
import { PREVIEW_ID_PLACEHOLDER, type PreviewOrigins } from './http/previewOrigins';

/**
 * ORG-3: `--public-url https://HOST` with either `--preview-origin-template 'https://p-{id}.HOST'`
 * (a wildcard name: one origin per preview) or `--preview-origin https://HOST:8443` (one shared
 * preview origin). Every preview origin must be same-site with the app (ORG-2).
 */
export function parsePublicOrigins(
  publicUrl: string | undefined,
  template: string | undefined,
  shared: string | undefined,
): { publicUrl: URL | null; previewOrigins: PreviewOrigins | null } {
  if (template !== undefined && shared !== undefined)
    throw new Error('Give either --preview-origin-template or --preview-origin, not both.');
  if (publicUrl === undefined) {
    if (template !== undefined || shared !== undefined)
      throw new Error('--preview-origin-template and --preview-origin need --public-url.');
    return { publicUrl: null, previewOrigins: null };
  }
  const app = parseOrigin(publicUrl, '--public-url');
  if (template !== undefined) {
    const firstLabel = template.replace(/^[a-z]+:\/\//, '').split('.')[0] ?? '';
    if (!firstLabel.includes(PREVIEW_ID_PLACEHOLDER))
      throw new Error(
        `--preview-origin-template must put {id} in its first name label, like https://p-{id}.${app.host}.`,
      );
    const probe = parseOrigin(template.replace(PREVIEW_ID_PLACEHOLDER, '0'.repeat(32)), '--preview-origin-template');
    if (!probe.hostname.endsWith('.' + app.hostname))
      throw new Error('--preview-origin-template must name subdomains of the --public-url host (ORG-2: same site).');
    return { publicUrl: app, previewOrigins: { kind: 'per-preview', template: template.replace(/\/$/, '') } };
  }
  if (shared !== undefined) {
    const origin = parseOrigin(shared, '--preview-origin');
    if (origin.origin === app.origin)
      throw new Error(
        '--preview-origin must differ from --public-url (another port or name): previews never share the app origin.',
      );
    const sameSite = origin.hostname === app.hostname || origin.hostname.endsWith('.' + app.hostname);
    if (!sameSite)
      throw new Error('--preview-origin must be on the --public-url host or a subdomain of it (ORG-2: same site).');
    return { publicUrl: app, previewOrigins: { kind: 'shared', origin: origin.origin } };
  }
  throw new Error('--public-url needs --preview-origin-template or --preview-origin (see README, "From a phone").');
}
