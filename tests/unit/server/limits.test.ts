import { describe, expect, it } from 'vitest';
import { PairingGuessLimit } from '../../../server/auth/pairingGuessLimit';
import { parseLimits } from '../../../server/cliLimits';
import { DEFAULT_UPLOAD_QUOTA } from '../../../server/runtime/attachments/uploadQuota';
import { DEFAULT_HTTP_LIMITS } from '../../../lib/nodeHttp/httpLimits';
import { DEFAULT_SOCKET_LIMITS } from '../../../server/rpc/socketLimits';

describe('SEC-9 the pairing-guess window', () => {
  it('SEC-9 lets N wrong guesses through per window, then names the wait until the oldest one leaves it', () => {
    const limit = new PairingGuessLimit({ guesses: 3, windowMs: 1_000 });
    for (const at of [0, 100, 200]) {
      expect(limit.retryAfterMs(at)).toBe(0);
      limit.recordWrongGuess(at);
    }
    expect(limit.retryAfterMs(300)).toBe(700);
    expect(limit.retryAfterMs(999)).toBe(1);
    // The guess made at 0 has left the window: one more may be evaluated, then the wait is for the one at 100.
    expect(limit.retryAfterMs(1_000)).toBe(0);
    limit.recordWrongGuess(1_000);
    expect(limit.retryAfterMs(1_000)).toBe(100);
  });

  it('SEC-9 a guess that is not recorded (a right code, or one refused unread) uses up nothing', () => {
    const limit = new PairingGuessLimit({ guesses: 1, windowMs: 1_000 });
    for (let at = 0; at < 50; at++) expect(limit.retryAfterMs(at)).toBe(0);
    limit.recordWrongGuess(50);
    expect(limit.retryAfterMs(51)).toBe(999);
  });
});

describe('SEC-9 limit flags', () => {
  it('SEC-9 defaults apply; a flag wins over its environment variable', () => {
    expect(parseLimits({}, {}).http).toEqual(DEFAULT_HTTP_LIMITS);
    const limits = parseLimits(
      { 'headers-timeout-ms': '2000', 'pairing-guess-limit': '5' },
      {
        HBCODE_HEADERS_TIMEOUT_MS: '9000',
        HBCODE_MAX_CONNECTIONS: '7',
        HBCODE_MAX_UNFINISHED_HEAD_BYTES: '100000',
        HBCODE_PAIRING_GUESS_WINDOW_MS: '3000',
      },
    );
    expect(limits.http).toEqual({
      headersTimeoutMs: 2_000,
      requestTimeoutMs: DEFAULT_HTTP_LIMITS.requestTimeoutMs,
      maxConnections: 7,
      maxUnfinishedHeadBytes: 100_000,
    });
    expect(() => parseLimits({ 'max-unfinished-head-bytes': '10' }, {})).toThrow(
      '--max-unfinished-head-bytes must be a whole number of at least 65536, not "10".',
    );
    expect(limits.pairing).toEqual({ guesses: 5, windowMs: 3_000 });
    // ATT-3: the attachment quotas and the upload expiry are limits like the others.
    const quotas = parseLimits(
      { 'attachment-device-quota-bytes': '1000', 'upload-expiry-ms': '500' },
      { HBCODE_ATTACHMENT_DISK_HEADROOM_BYTES: '0' },
    ).attachments;
    expect(quotas).toEqual({
      perDeviceBytes: 1_000,
      totalBytes: DEFAULT_UPLOAD_QUOTA.totalBytes,
      headroomBytes: 0,
      expiryMs: 500,
    });
  });

  it('RPC-2 SEC-9 the hello deadline is 15 s unless HBCODE_AUTH_TIMEOUT_MS names another', () => {
    expect(parseLimits({}, {}).socket.authTimeoutMs).toBe(15_000);
    expect(parseLimits({}, { HBCODE_AUTH_TIMEOUT_MS: '1200' }).socket).toEqual({
      ...DEFAULT_SOCKET_LIMITS,
      authTimeoutMs: 1_200,
    });
  });

  it('SEC-9 a request timeout shorter than the headers timeout is raised to it', () => {
    expect(parseLimits({ 'headers-timeout-ms': '5000', 'request-timeout-ms': '1000' }, {}).http.requestTimeoutMs).toBe(
      5_000,
    );
  });

  it('SEC-9 a value that is not a whole number at or above the minimum is refused with the flag or variable named', () => {
    expect(() => parseLimits({ 'max-connections': '0' }, {})).toThrow(
      '--max-connections must be a whole number of at least 1, not "0".',
    );
    expect(() => parseLimits({}, { HBCODE_HEADERS_TIMEOUT_MS: '1.5' })).toThrow(
      'HBCODE_HEADERS_TIMEOUT_MS must be a whole number of at least 100, not "1.5".',
    );
    expect(() => parseLimits({ 'pairing-guess-window-ms': 'soon' }, {})).toThrow('--pairing-guess-window-ms');
  });
});
