import os from 'node:os';
import { describe, expect, it } from 'vitest';
import { parseCli } from '../../../../server/cli';
import { DEFAULT_VAPID_SUBJECT, parseVapidSubject, vapidSubjectFor } from '../../../../server/push/vapidSubject';

describe('PUSH-1 the VAPID subject', () => {
  it('PUSH-1 accepts a mailto: address and an https: URL', () => {
    expect(parseVapidSubject('mailto:me@example.org')).toBe('mailto:me@example.org');
    expect(parseVapidSubject('https://code.example.org')).toBe('https://code.example.org/');
  });

  it.each([
    'mailto:me@localhost',
    'https://localhost',
    'https://hbcode.localhost:8787',
    'https://127.0.0.1',
    'https://[::1]/',
    'mailto:me@127.0.0.1',
  ])('PUSH-1 refuses the localhost address %s', (subject) =>
    expect(() => parseVapidSubject(subject)).toThrow(/localhost/),
  );

  it.each(['http://example.org', 'me@example.org', 'mailto:nobody'])(
    'PUSH-1 refuses %s, neither mailto: nor https:',
    (subject) => expect(() => parseVapidSubject(subject)).toThrow(/vapid-subject/),
  );

  it('PUSH-1 defaults to the public HTTPS address, never to a local one', () => {
    expect(vapidSubjectFor(undefined, new URL('https://tunnel.example.net/'))).toBe('https://tunnel.example.net');
    expect(vapidSubjectFor(undefined, new URL('http://hbcode.localhost:8787'))).toBe(DEFAULT_VAPID_SUBJECT);
    expect(vapidSubjectFor(undefined, null)).toBe(DEFAULT_VAPID_SUBJECT);
    expect(vapidSubjectFor('mailto:a@b.example', new URL('https://tunnel.example.net/'))).toBe('mailto:a@b.example');
  });

  it('PUSH-1 the command line and HBCODE_VAPID_SUBJECT set it, and a localhost one stops start-up', () => {
    expect(parseCli(['--vapid-subject', 'mailto:me@example.org'], {}, os.tmpdir()).vapidSubject).toBe(
      'mailto:me@example.org',
    );
    expect(parseCli([], { HBCODE_VAPID_SUBJECT: 'https://me.example.org' }, os.tmpdir()).vapidSubject).toBe(
      'https://me.example.org/',
    );
    expect(() => parseCli(['--vapid-subject', 'mailto:me@localhost'], {}, os.tmpdir())).toThrow(/localhost/);
  });
});
