import { spawn } from 'node:child_process';
import WebSocket from 'ws';
import { REPO_ROOT } from '../server/runtime/paths';
import { startRuntimeProcess } from '../tests/fixtures/runtimeProcess';
import { createTerminalSession, TerminalWatch, terminalTestEnv } from '../tests/fixtures/terminalSession';
import { benchSettings, type Benchmark, type BenchOutcome } from './lib/report';
import { median, now, percentile, rotateRounds } from './lib/rounds';

/** A plain WebSocket echo server in a process of its own, as the runtime is. */
const ECHO_SERVER = `
const { WebSocketServer } = require('ws');
const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
server.on('connection', (socket) => socket.on('message', (data, isBinary) => socket.send(data, { binary: isBinary })));
server.on('listening', () => process.stdout.write(String(server.address().port) + '\\n'));
`;

export async function startEchoServer(): Promise<{ url: string; close(): void }> {
  const child = spawn(process.execPath, ['-e', ECHO_SERVER], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout.once('data', (d: Buffer) => resolve(Number(d.toString().trim())));
    child.once('exit', () => reject(new Error('the echo server exited')));
  });
  return { url: `ws://127.0.0.1:${port}`, close: () => child.kill('SIGKILL') };
}

/**
 * TERM-4: one keystroke typed into a terminal session's shell (terminal.input over the runtime's
 * WebSocket, through the PTY and bash's line editor) until its echo arrives back as
 * terminal.output, against a plain WebSocket echo of a one-byte message to a separate Node
 * process on loopback, in the same run. Latency, lower is better; no spec target.
 */
export const termEcho: Benchmark = {
  name: 'term-echo',
  async run(progress): Promise<BenchOutcome> {
    // HBCODE_BENCH_BYTES sets the keystrokes per round here.
    const { totalBytes: keysPerRound, rounds, overridden } = benchSettings(200, 5);
    const runtime = await startRuntimeProcess({ env: terminalTestEnv() });
    const echo = await startEchoServer();
    try {
      const client = await runtime.connect();
      const sessionId = await createTerminalSession(client);
      const watch = new TerminalWatch(client, sessionId);
      await watch.open({ cols: 120, rows: 40 });
      await watch.prompt();
      const socket = new WebSocket(echo.url);
      await new Promise<void>((resolve, reject) => {
        socket.once('open', () => resolve());
        socket.once('error', reject);
      });

      const terminalKeys = async (): Promise<number[]> => {
        const samples: number[] = [];
        for (let i = 0; i < keysPerRound; i++) {
          const key = String.fromCharCode(97 + (i % 26));
          const before = watch.bytes().length;
          const started = now();
          void watch.type(key);
          await new Promise<void>((resolve) => {
            const stop = client.onNotification('terminal.output', (params) => {
              if (params.sessionId === sessionId && Buffer.from(params.dataBase64, 'base64').includes(key)) {
                stop();
                resolve();
              }
            });
            if (watch.bytes().subarray(before).includes(key)) {
              stop();
              resolve();
            }
          });
          samples.push(now() - started);
        }
        // Ctrl+U empties the line again (untimed).
        await watch.type('\x15');
        return samples;
      };
      const plainEcho = async (): Promise<number[]> => {
        const samples: number[] = [];
        for (let i = 0; i < keysPerRound; i++) {
          const started = now();
          await new Promise<void>((resolve) => {
            socket.once('message', () => resolve());
            socket.send('x');
          });
          samples.push(now() - started);
        }
        return samples;
      };
      progress('TERM-4: warm-up (untimed)');
      await terminalKeys();
      await plainEcho();
      const results = await rotateRounds(
        rounds,
        { terminal: terminalKeys, echo: plainEcho },
        progress,
        (s) => `median ${median(s).toFixed(3)} ms`,
      );
      const terminal = results.terminal.flat();
      const plain = results.echo.flat();
      socket.close();
      client.close();
      const line = (stat: 'median' | 'p95', p: number) => ({
        rule: 'TERM-4',
        label: `keystroke echo, ${stat}`,
        unit: 'ms' as const,
        better: 'lower' as const,
        oursName: 'terminal.input → PTY → bash → terminal.output',
        referenceName: 'plain WebSocket echo of 1 byte',
        ours: percentile(terminal, p),
        reference: percentile(plain, p),
        target: null,
      });
      return {
        comparisons: [line('median', 0.5), line('p95', 0.95)],
        parameters: { rounds, keysPerRound, overridden },
        measurements: { terminalMs: terminal, echoMs: plain },
        notes: [
          'Both sides are measured at the Node client from send to the first frame holding the echoed byte; the runtime and the echo server each run in a process of their own on loopback.',
          "The terminal's path adds the RPC validation, the PTY, bash's line editor echoing the key, and the write-ahead store the bytes pass on their way (the live frame goes out before the bytes are stored).",
          'Through the relay and to the drawn character in Chromium: see term-echo-phone.',
        ],
      };
    } finally {
      echo.close();
      await runtime.kill();
    }
  },
};
