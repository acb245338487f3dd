import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { RuntimeError } from '../errors';
import type { Logger } from '../log';
import {
  SESSION_TOOL_ENV,
  SessionToolRequestSchema,
  type SessionToolAnswer,
  type SessionToolRequest,
} from './sessionToolProtocol';

/** A request body larger than this is refused: a message is at most 100 000 characters. */
const MAX_BODY_BYTES = 1024 * 1024;

export type SessionToolHandler = (
  sessionId: string,
  request: SessionToolRequest,
) => SessionToolAnswer | Promise<SessionToolAnswer>;

/**
 * The loopback channel the session tool server calls back on (MSG-2). Each session's tool server
 * gets a key made for that session (an HMAC of its id under a key of this runtime start), so a
 * caller can only act as the session whose key it holds; the port and keys change every start.
 */
export class SessionToolChannel {
  private readonly secret = crypto.randomBytes(32);
  private readonly server: http.Server;
  private url: string | null = null;
  private handle: SessionToolHandler = () => ({
    ok: false,
    code: 'unavailable',
    message: 'The desktop is starting; try again.',
  });

  constructor(private readonly log: Logger) {
    this.server = http.createServer((request, response) => void this.answer(request, response));
  }

  /** Who answers the calls (the runtime, once it is made). */
  serve(handler: SessionToolHandler): void {
    this.handle = handler;
  }

  async start(): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(0, '127.0.0.1', () => resolve());
    });
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/`;
  }

  /** The environment a session's tool server is started with. */
  environmentFor(sessionId: string): Record<string, string> {
    if (!this.url) throw new Error('The session tool channel is not started.');
    return {
      [SESSION_TOOL_ENV.url]: this.url,
      [SESSION_TOOL_ENV.key]: `${sessionId}.${this.mac(sessionId).toString('base64url')}`,
    };
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private mac(sessionId: string): Buffer {
    return crypto.createHmac('sha256', this.secret).update(sessionId).digest();
  }

  /** The session a key names, when the key is this runtime's for it. */
  private sessionOfKey(header: string | undefined): string | null {
    const key = header?.startsWith('Bearer ') ? header.slice('Bearer '.length) : '';
    const dot = key.lastIndexOf('.');
    if (dot <= 0) return null;
    const sessionId = key.slice(0, dot);
    const given = Buffer.from(key.slice(dot + 1), 'base64url');
    const expected = this.mac(sessionId);
    return given.length === expected.length && crypto.timingSafeEqual(given, expected) ? sessionId : null;
  }

  private async answer(request: http.IncomingMessage, response: http.ServerResponse): Promise<void> {
    const reply = (status: number, answer: SessionToolAnswer) => {
      response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
    };
    const sessionId = this.sessionOfKey(request.headers.authorization);
    if (!sessionId)
      return reply(401, {
        ok: false,
        code: 'unauthorized',
        message: 'This key does not belong to a session of this runtime.',
      });
    if (request.method !== 'POST')
      return reply(405, { ok: false, code: 'invalid_params', message: 'Only POST is answered.' });
    let body: unknown;
    try {
      body = JSON.parse(await readBody(request));
    } catch (error) {
      return reply(400, {
        ok: false,
        code: 'invalid_params',
        message: `The request is not JSON of at most ${MAX_BODY_BYTES} bytes: ${(error as Error).message}`,
      });
    }
    const parsed = SessionToolRequestSchema.safeParse(body);
    if (!parsed.success)
      return reply(400, {
        ok: false,
        code: 'invalid_params',
        message: parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '),
      });
    try {
      reply(200, await this.handle(sessionId, parsed.data));
    } catch (error) {
      if (error instanceof RuntimeError) return reply(200, { ok: false, code: error.code, message: error.message });
      const id = crypto.randomUUID();
      this.log.error('session tool call failed', { id, sessionId, tool: parsed.data.tool }, error);
      reply(500, { ok: false, code: 'internal', message: `The desktop could not carry out the call (fault ${id}).` });
    }
  }
}

function readBody(request: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        reject(new Error('too large'));
        request.destroy();
        return;
      }
      chunks.push(chunk);
    });
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}
