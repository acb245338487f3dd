/** How long the question may take before the page counts as served by the desktop itself. */
const PROBE_TIMEOUT_MS = 5_000;

/** Reads `/healthz` of the page's own origin. */
export type HealthFetch = (url: string, signal: AbortSignal) => Promise<{ json(): Promise<unknown> }>;

const browserHealthFetch: HealthFetch = (url, signal) => fetch(url, { cache: 'no-store', signal });

/**
 * Whether the page came from a relay node rather than a desktop runtime (RLY-1): both answer
 * `/healthz`, and only a relay adds `"relay": true`. A plain request that both answer with 200, so
 * a page of a desktop logs no failed request (a WebSocket probe did, on every load).
 * The answer only chooses which pairing screen to show: a relay that lies gains nothing by it.
 */
export async function servedByRelay(location: { protocol: string; host: string }, fetchHealth: HealthFetch = browserHealthFetch): Promise<boolean> {
  try {
    const answer = await fetchHealth(`${location.protocol}//${location.host}/healthz`, AbortSignal.timeout(PROBE_TIMEOUT_MS));
    const body = await answer.json();
    return typeof body === 'object' && body !== null && (body as { relay?: unknown }).relay === true;
  } catch {
    return false;
  }
}
