/** Which of the runtime's origins a request is for, decided by its Host header (RPC-5, ORG-1). */
export type HostRoute =
  | { kind: 'app' }
  | { kind: 'loopback' }
  | { kind: 'preview'; previewId: string }
  | { kind: 'unknown' };

export interface Origins {
  /** e.g. http://hbcode.localhost:8787 */
  app: URL;
  port: number;
}

const PREVIEW_LABEL = /^p-([0-9a-f]{32})$/;
const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '[::1]']);

export function appOriginOf(origins: Origins): string {
  return origins.app.origin;
}

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
  const appName = origins.app.hostname.toLowerCase();
  if (name.endsWith('.' + appName) && host.endsWith(portSuffix)) {
    const match = PREVIEW_LABEL.exec(name.slice(0, -appName.length - 1));
    if (match) return { kind: 'preview', previewId: match[1]! };
  }
  return { kind: 'unknown' };
}
