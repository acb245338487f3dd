import type { ConnectionEnvironment } from './connection';
import type { WebSocketLike } from './rpcClient';

/** The browser's side of the connection: real sockets, `navigator.onLine`, `online` and `visibilitychange`, `/healthz` to drop cookies. */
export const browserConnectionEnvironment: ConnectionEnvironment = {
  createSocket(url) {
    const socket = new WebSocket(url);
    socket.binaryType = 'arraybuffer';
    return socket as unknown as WebSocketLike;
  },
  isOnline: () => navigator.onLine !== false,
  isHidden: () => document.visibilityState === 'hidden',
  onWake(wake) {
    window.addEventListener('online', wake);
    document.addEventListener('visibilitychange', wake);
    return () => {
      window.removeEventListener('online', wake);
      document.removeEventListener('visibilitychange', wake);
    };
  },
  setTimer: (run, ms) => setTimeout(run, ms),
  clearTimer: (timer) => clearTimeout(timer as ReturnType<typeof setTimeout>),
  now: () => Date.now(),
  clearCookies() {
    // The answer's Clear-Site-Data header does the work; the body and any failure do not matter.
    void fetch('/healthz', { cache: 'no-store' }).catch(() => undefined);
  },
};
