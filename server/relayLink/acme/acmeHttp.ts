import https from 'node:https';
import acme from 'acme-client';
import { AcmeCertificateError } from './acmeCertificateError';

/** A problem document (RFC 8555 §6.7) the ACME server sent, or the error of an invalid challenge. */
export interface AcmeProblem {
  type: string;
  detail: string;
  /** From a challenge or authorization whose status became `invalid`: the CA's validation failed. */
  fromValidation: boolean;
  retryAfterMs: number | null;
}

interface AcmeResponseBody {
  type?: unknown;
  detail?: unknown;
  status?: unknown;
  error?: { type?: unknown; detail?: unknown };
}

/**
 * acme-client talks HTTP through one axios instance for the whole process (`acme.axios`, the way
 * its README gives to configure it). For requests to this directory's origin only, these hooks
 * trust `caBundle` instead of Node's roots (tests trust their ACME server this way) and remember
 * the last problem the server reported: acme-client's own errors keep only its text, and the
 * retry policy needs its type (`rateLimited`) and Retry-After.
 */
export class AcmeHttpHooks {
  private lastProblemSeen: AcmeProblem | null = null;
  private readonly agent: https.Agent | undefined;
  private readonly requestHook: number;
  private readonly responseHook: number;

  constructor(
    readonly directoryUrl: string,
    caBundle: string | undefined,
    private readonly now: () => number,
  ) {
    const origin = new URL(directoryUrl).origin;
    const ours = (url: string | undefined) => url !== undefined && URL.canParse(url) && new URL(url).origin === origin;
    this.agent = caBundle === undefined ? undefined : new https.Agent({ ca: caBundle, keepAlive: true });
    this.requestHook = acme.axios.interceptors.request.use((config) => {
      if (this.agent && ours(config.url)) config.httpsAgent = this.agent;
      return config;
    });
    this.responseHook = acme.axios.interceptors.response.use((response) => {
      if (ours(response.config.url))
        this.notice(response.status, response.data as AcmeResponseBody | undefined, response.headers['retry-after']);
      return response;
    });
  }

  /** The last problem since `forgetProblems()`. */
  lastProblem(): AcmeProblem | null {
    return this.lastProblemSeen;
  }

  forgetProblems(): void {
    this.lastProblemSeen = null;
  }

  /** Answers whether the directory answers at all, so "server down" reads as such (acme-client retries it for over a minute and then reports a TypeError). */
  async probeDirectory(timeoutMs: number): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      const fail = (reason: string, cause?: unknown) =>
        reject(
          new AcmeCertificateError(
            'acme-unreachable',
            `The ACME directory ${this.directoryUrl} did not answer: ${reason}`,
            null,
            { cause },
          ),
        );
      const request = https.get(this.directoryUrl, { agent: this.agent, timeout: timeoutMs }, (response) => {
        response.resume();
        if (response.statusCode === 200) resolve();
        else fail(`HTTP ${response.statusCode}`);
      });
      request.on('timeout', () => request.destroy(new Error(`no answer within ${timeoutMs} ms`)));
      request.on('error', (error) => fail(error.message, error));
    });
  }

  release(): void {
    acme.axios.interceptors.request.eject(this.requestHook);
    acme.axios.interceptors.response.eject(this.responseHook);
    this.agent?.destroy();
  }

  private notice(status: number, body: AcmeResponseBody | undefined, retryAfter: unknown): void {
    if (!body || typeof body !== 'object') return;
    if (status >= 400 && typeof body.type === 'string') {
      this.lastProblemSeen = {
        type: body.type,
        detail: String(body.detail ?? ''),
        fromValidation: false,
        retryAfterMs: this.retryAfterMs(retryAfter),
      };
    } else if (body.status === 'invalid' && body.error && typeof body.error.type === 'string') {
      this.lastProblemSeen = {
        type: body.error.type,
        detail: String(body.error.detail ?? ''),
        fromValidation: true,
        retryAfterMs: null,
      };
    }
  }

  private retryAfterMs(header: unknown): number | null {
    if (typeof header !== 'string' || header.trim() === '') return null;
    const seconds = Number(header);
    if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
    const at = Date.parse(header);
    return Number.isNaN(at) ? null : Math.max(0, at - this.now());
  }
}
