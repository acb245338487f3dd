import { matchPreviewHost, type PreviewOrigins } from './previewOrigins';

/** Which of the runtime's origins a request is for, decided by its Host header (RPC-5, ORG-1). */
export type HostRoute =
  | { kind: 'app' }
  | { kind: 'loopback' }
  /** `previewId` is null on a shared preview origin (ORG-3). */
  | { kind: 'preview'; previewId: string | null }
  | { kind: 'unknown' };

export interface Origins {
  /** e.g. http://hbcode.localhost:8787 */
  app: URL;
  port: number;
  previews: PreviewOrigins;
}
const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * Classifies a Host header. Unknown names are refused, so a page on another site that rebinds
 * its DNS name to 127.0.0.1 reaches nothing here.
 */
export function routeHost(hostHeader: string | undefined, origins: Origins): HostRoute {
  if (!hostHeader) return { kind: 'unknown' };
  const host = hostHeader.toLowerCase();
  const appHost = origins.app.host.toLowerCase();
  if (host === appHost) return { kind: 'app' };
  const portSuffix = `:${origins.port}`;
  const name = host.endsWith(portSuffix) ? host.slice(0, -portSuffix.length) : host;
  if (LOOPBACK_NAMES.has(name)) return { kind: 'loopback' };
  const preview = matchPreviewHost(origins.previews, host);
  return preview ? { kind: 'preview', previewId: preview.previewId } : { kind: 'unknown' };
}
