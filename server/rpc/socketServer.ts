import type http from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { MAX_FRAME_BYTES } from '../../lib/protocol/version';
import type { Logger } from '../runtime/log';
import type { Runtime } from '../runtime/runtime';
import type { PreviewOrigins } from '../http/previewOrigins';
import { createMethodHandlers } from './methodHandlers';
import { RpcConnection } from './rpcConnection';

/**
 * Frames up to this size are read so that an oversize one (over MAX_FRAME_BYTES) still gets a
 * `too_large` answer on a socket that stays open (RPC-3); past it `ws` closes with 1009.
 */
const READ_LIMIT_BYTES = 4 * MAX_FRAME_BYTES;

/** Adapts `ws` to RpcConnection and fans runtime events out to authenticated sockets. */
export function createRpcSocketServer(runtime: Runtime, appOrigin: string, log: Logger, previewOrigins: PreviewOrigins) {
  const wss = new WebSocketServer({ noServer: true, maxPayload: READ_LIMIT_BYTES, perMessageDeflate: false });
  const handlers = createMethodHandlers(runtime, previewOrigins);
  const connections = new Set<RpcConnection>();

  const unsubscribe = runtime.subscribe((event) => {
    for (const connection of connections) {
      if (event.type === 'timeline.row') connection.notify('timeline.row', { sessionId: event.sessionId, row: event.row });
      else if (event.type === 'sessions.changed') connection.notify('sessions.changed', { sessionId: event.sessionId, deleted: event.deleted });
      else if (event.type === 'preview.changed') connection.notify('preview.changed', { previewId: event.previewId, path: event.path });
      else if (event.type === 'approval.changed') connection.notify('approval.changed', { sessionId: event.sessionId, approval: event.approval });
      else if (event.type === 'device.revoked' && connection.deviceId === event.deviceId) connection.revoke();
    }
  });

  wss.on('connection', (ws: WebSocket) => {
    const connection = new RpcConnection(
      { send: (text) => ws.send(text), sendBinary: (frame, sent) => ws.send(frame, { binary: true }, () => sent()), close: (code, reason) => ws.close(code, reason) },
      handlers,
      appOrigin,
      log,
    );
    connections.add(connection);
    ws.on('message', (data, isBinary) => {
      const bytes = Array.isArray(data) ? Buffer.concat(data) : Buffer.isBuffer(data) ? data : Buffer.from(data);
      void connection.receive(bytes, isBinary);
    });
    ws.on('close', () => {
      connection.detach();
      connections.delete(connection);
    });
    ws.on('error', (error) => log.warn('socket error', { reason: error.message }));
  });

  return {
    handleUpgrade(req: http.IncomingMessage, socket: Duplex, head: Buffer) {
      wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req));
    },
    close() {
      unsubscribe();
      for (const ws of wss.clients) ws.close(1001, 'runtime shutting down');
      wss.close();
    },
  };
}
