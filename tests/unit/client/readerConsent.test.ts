import { afterEach, describe, expect, it, vi } from 'vitest';
import { addressParts } from '../../../lib/client/addressParts';
import { grantReaderOpen, readerOpenGranted } from '../../../lib/client/readerConsent';

// SEC-5: what the reader's confirmation shows, and which addresses open without it.

describe('SEC-5 the reader asks unless the app itself opened the address', () => {
  afterEach(() => vi.useRealTimers());

  it('SEC-5 only the address the app just opened is granted, and only for a moment', () => {
    vi.useFakeTimers();
    expect(readerOpenGranted('https://example.org/a')).toBe(false);
    grantReaderOpen('https://example.org/a');
    expect(readerOpenGranted('https://example.org/a')).toBe(true);
    expect(readerOpenGranted('https://example.org/b')).toBe(false);
    grantReaderOpen('https://example.org/b');
    expect(readerOpenGranted('https://example.org/a')).toBe(false);
    vi.advanceTimersByTime(60_000);
    expect(readerOpenGranted('https://example.org/b')).toBe(false);
  });

  it('SEC-5 the host is split out for emphasis, in its ASCII form, also past a user name', () => {
    expect(addressParts('http://127.0.0.1:8080/internal-admin?action=delete')).toEqual({
      before: 'http://',
      host: '127.0.0.1:8080',
      after: '/internal-admin?action=delete',
    });
    expect(addressParts('https://xn--pple-43d.com/login')).toEqual({
      before: 'https://',
      host: 'xn--pple-43d.com',
      after: '/login',
    });
    expect(addressParts('https://аpple.com/login').host).toBe('xn--pple-43d.com');
    expect(addressParts('http://user@user/x')).toEqual({ before: 'http://user@', host: 'user', after: '/x' });
    expect(addressParts('http://bank.example:pw@evil.example/')).toEqual({
      before: 'http://bank.example:pw@',
      host: 'evil.example',
      after: '/',
    });
    expect(addressParts('http://[::ffff:127.0.0.1]/')).toEqual({
      before: 'http://',
      host: '[::ffff:7f00:1]',
      after: '/',
    });
    expect(addressParts('not an address')).toEqual({ before: 'not an address', host: '', after: '' });
  });
});
