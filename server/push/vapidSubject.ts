/** Used when neither `--vapid-subject` nor an HTTPS `--public-url` names a contact. */
export const DEFAULT_VAPID_SUBJECT = 'mailto:hbcode-runtime@example.com';

/** Loopback and `.localhost` names: the iOS push service refuses a VAPID subject naming one (PUSH-1). */
function isLocalHostname(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/^\[|\]$/g, '');
  return (
    host === 'localhost' || host.endsWith('.localhost') || host === '::1' || /^127\./.test(host) || host === '0.0.0.0'
  );
}

/**
 * The VAPID subject (the push services' contact for this sender): a `mailto:` address or an
 * `https:` URL, never a localhost one (PUSH-1). Throws with a message for the command line.
 */
export function parseVapidSubject(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error(`--vapid-subject must be a mailto: address or an https: URL, not "${value}".`);
  }
  if (url.protocol === 'mailto:') {
    const domain = url.pathname.split('@')[1];
    if (!domain) throw new Error(`--vapid-subject "${value}" is not an e-mail address.`);
    if (isLocalHostname(domain))
      throw new Error(`--vapid-subject may not name localhost ("${value}"): push services refuse it.`);
    return value;
  }
  if (url.protocol === 'https:') {
    if (isLocalHostname(url.hostname))
      throw new Error(`--vapid-subject may not name localhost ("${value}"): push services refuse it.`);
    return url.href;
  }
  throw new Error(`--vapid-subject must be a mailto: address or an https: URL, not "${value}".`);
}

/** The subject to use: the one given, else the public HTTPS address, else a neutral contact. */
export function vapidSubjectFor(given: string | undefined, publicUrl: URL | null): string {
  if (given !== undefined) return parseVapidSubject(given);
  if (publicUrl && publicUrl.protocol === 'https:' && !isLocalHostname(publicUrl.hostname)) return publicUrl.origin;
  return DEFAULT_VAPID_SUBJECT;
}
