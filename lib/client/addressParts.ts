/**
 * An address split so that its host can stand out (SEC-5): what comes before it, the host, the rest.
 * The address is shown as the URL parser normalises it, so a look-alike host shows in its ASCII
 * (punycode) form, and what is shown is what the runtime would fetch.
 */
export function addressParts(address: string): { before: string; host: string; after: string } {
  try {
    const url = new URL(address);
    // NOTE: the host is found after any user name, which may itself look like a host (http://bank.example@evil.example/).
    const userInfo = url.username ? `${url.username}${url.password ? `:${url.password}` : ''}@` : '';
    const before = `${url.protocol}//${userInfo}`;
    if (!url.host || !url.href.startsWith(before + url.host)) return { before: url.href, host: '', after: '' };
    return { before, host: url.host, after: url.href.slice(before.length + url.host.length) };
  } catch {
    return { before: address, host: '', after: '' };
  }
}
