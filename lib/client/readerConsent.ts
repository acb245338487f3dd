/**
 * Which reader addresses may be fetched without asking (SEC-5): only one the person typed into the
 * app's address field or clicked in the app's own interface, just now. Any other way to reach
 * `#/read?url=` (a link from another site, a reload, a preview's `hbcode.html.open`, which a
 * previewed page can send without any click) shows a confirmation first.
 *
 * NOTE: kept in memory only, never in the address or in storage, so nothing outside this page's
 * own code can grant it; one address at a time, and only briefly, so a later navigation to the
 * same address from elsewhere asks again.
 */
const GRANT_MS = 5_000;

let granted: { url: string; until: number } | null = null;

/** Called by the app's own controls right before they open `url` in the reader. */
export function grantReaderOpen(url: string): void {
  granted = { url, until: Date.now() + GRANT_MS };
}

/** Whether the reader may fetch `url` without asking. */
export function readerOpenGranted(url: string): boolean {
  return granted !== null && granted.url === url && Date.now() <= granted.until;
}
