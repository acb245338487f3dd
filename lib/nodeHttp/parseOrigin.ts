/**
 * An origin given on the command line (`--public-url`, `--relay`, preview origins). Plain http is
 * accepted only for names the browser treats as secure anyway (`*.localhost`).
 */
export function parseOrigin(value: string, flag: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error(`${flag} must be a URL such as https://example.org, not "${value}".`);
  }
  const localhost = url.hostname === 'localhost' || url.hostname.endsWith('.localhost');
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && localhost))
    throw new Error(`${flag} must be an https:// address (phones need a secure context).`);
  if (url.pathname !== '/' || url.search || url.hash || url.username || url.password)
    throw new Error(`${flag} must be an origin only, like https://example.org:8443.`);
  return url;
}
