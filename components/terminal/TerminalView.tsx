'use client';
import '@xterm/xterm/css/xterm.css';
import './terminal.css';
import { FitAddon } from '@xterm/addon-fit';
import { Terminal, type ITheme } from '@xterm/xterm';
import { ArrowDown, ArrowLeft, ArrowRight, ArrowUp, ClipboardPaste, Copy } from 'lucide-react';
import { useCallback, useEffect, useRef, useState } from 'react';
import type { RpcClient } from '../../lib/client/rpcClient';
import { readTimelineSnapshot, saveTimelineSnapshot } from '../../lib/client/snapshotCache';
import { arrowKey, TERMINAL_KEYS, withCtrl, type ArrowKey } from '../../lib/client/terminalKeys';
import { replayRow, replayStarts } from '../../lib/client/terminalReplay';
import type { CommandRow, Session } from '../../lib/protocol/rows';
import { SessionTitle } from '../sessions/SessionTitle';

const LIGHT: ITheme = {
  background: '#ffffff',
  foreground: '#1b1c1e',
  cursor: '#3451d1',
  selectionBackground: '#b9c6ff',
};
const DARK: ITheme = {
  background: '#0b0c0e',
  foreground: '#e8e9eb',
  cursor: '#7b93ff',
  selectionBackground: '#3b4a8a',
};
const darkQuery = () => window.matchMedia('(prefers-color-scheme: dark)');
/** A shell that ended before the one that follows it on the screen. */
const SHELL_ENDED = '\r\n\x1b[2m[shell ended]\x1b[0m\r\n';

function base64Bytes(text: string): Uint8Array {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

const isCommandRow = (row: { kind: string }): row is CommandRow => row.kind === 'command';

type Phase = 'opening' | 'live' | 'ended' | 'offline' | 'failed';

/**
 * A terminal session (TERM-6): xterm.js fitted to the pane, the stored scrollback replayed on
 * open (TERM-3), then the live bytes every device gets (TERM-4); keys, a phone key row with a
 * sticky Ctrl, copy and paste.
 */
export function TerminalView({
  client,
  session,
  onBack,
  onRenamed,
}: {
  client: RpcClient | null;
  session: Session;
  onBack: () => void;
  onRenamed?: (session: Session) => void;
}) {
  const host = useRef<HTMLDivElement>(null);
  const term = useRef<Terminal | null>(null);
  const fit = useRef<FitAddon | null>(null);
  const [ctrl, setCtrl] = useState(false);
  const ctrlRef = useRef(false);
  const [phase, setPhase] = useState<Phase>('opening');
  const [problem, setProblem] = useState<string | null>(null);
  const [generation, setGeneration] = useState(0);
  /** Replayed writes xterm has not parsed yet. */
  const replaying = useRef(0);
  const clientRef = useRef(client);
  clientRef.current = client;
  const sessionId = session.id;

  const send = useCallback(
    (data: string) => {
      const current = clientRef.current;
      if (!current) return;
      current.call('terminal.input', { sessionId, data }).catch((e: unknown) => setProblem((e as Error).message));
    },
    [sessionId],
  );

  const armCtrl = useCallback((on: boolean) => {
    ctrlRef.current = on;
    setCtrl(on);
  }, []);

  // The terminal itself, once per session.
  useEffect(() => {
    const element = host.current;
    if (!element) return;
    const terminal = new Terminal({
      fontFamily: 'ui-monospace, SFMono-Regular, Menlo, Consolas, monospace',
      fontSize: window.innerWidth < 600 ? 13 : 14,
      scrollback: 5000,
      theme: darkQuery().matches ? DARK : LIGHT,
      allowProposedApi: false,
    });
    const fitAddon = new FitAddon();
    terminal.loadAddon(fitAddon);
    terminal.open(element);
    fitAddon.fit();
    term.current = terminal;
    fit.current = fitAddon;
    const scheme = darkQuery();
    const onScheme = () => {
      terminal.options.theme = scheme.matches ? DARK : LIGHT;
      element.dataset.scheme = scheme.matches ? 'dark' : 'light';
    };
    element.dataset.scheme = scheme.matches ? 'dark' : 'light';
    scheme.addEventListener('change', onScheme);
    const typed = terminal.onData((data) => {
      // xterm answers the queries in replayed bytes (a program's "which terminal are you?"); the
      // shell that asked is long gone, so those answers must not be typed into today's (TERM-3).
      if (replaying.current > 0) return;
      if (ctrlRef.current) {
        armCtrl(false);
        send(withCtrl(data));
      } else send(data);
    });
    let resizeTimer: number | undefined;
    const resized = terminal.onResize(({ cols, rows }) => {
      window.clearTimeout(resizeTimer);
      resizeTimer = window.setTimeout(() => {
        clientRef.current?.call('terminal.resize', { sessionId, cols, rows }).catch(() => undefined);
      }, 80);
    });
    const observer = new ResizeObserver(() => fitAddon.fit());
    observer.observe(element);
    return () => {
      observer.disconnect();
      window.clearTimeout(resizeTimer);
      scheme.removeEventListener('change', onScheme);
      typed.dispose();
      resized.dispose();
      terminal.dispose();
      term.current = null;
      fit.current = null;
    };
  }, [sessionId, send, armCtrl]);

  // Replay what is stored, then follow the live bytes; again after every reconnect.
  useEffect(() => {
    const terminal = term.current;
    if (!terminal) return;
    let live = true;
    terminal.reset();
    setPhase('opening');
    setProblem(null);
    /** The running shell and how much of its output is on the screen. */
    let current: { runId: string; written: number } | null = null;
    const early: { runId: string; offset: number; bytes: Uint8Array; row: CommandRow }[] = [];
    let chain = Promise.resolve();
    const write = (bytes: Uint8Array) => terminal.write(bytes);
    const replay = (bytes: Uint8Array) => {
      replaying.current += 1;
      terminal.write(bytes, () => (replaying.current -= 1));
    };

    const apply = async (runId: string, offset: number, bytes: Uint8Array, row: CommandRow) => {
      if (!current || current.runId !== runId) {
        // A new shell (another device started it): it begins on a fresh line.
        if (current) write(new TextEncoder().encode(SHELL_ENDED));
        current = { runId, written: 0 };
      }
      if (offset > current.written && client) {
        // Bytes this device missed: read them from the store (TERM-4).
        current.written = await replayRow(client, sessionId, row, current.written, replay, offset);
      }
      const end = offset + bytes.byteLength;
      if (end <= current.written) return;
      write(bytes.subarray(Math.max(0, current.written - offset)));
      current.written = end;
    };
    const phaseRef = { current: 'opening' as Phase };
    const setPhaseBoth = (next: Phase) => {
      phaseRef.current = next;
      if (live) setPhase(next);
    };
    let rowsByRun = new Map<string, CommandRow>();
    /** The row to read a gap from; a shell started after the open has none yet, only its ids. */
    const rowOf = (runId: string, commandId: string): CommandRow =>
      rowsByRun.get(runId) ?? {
        kind: 'command',
        id: `c:${runId}:${commandId}`,
        sessionId,
        runId,
        commandId,
        command: '',
        status: 'running',
        exitCode: null,
        byteLength: 0,
        generation: 1,
        complete: false,
        sourceIncomplete: true,
        startedAt: Date.now(),
        endedAt: null,
      };
    const stop = client?.onNotification('terminal.output', (params) => {
      if (params.sessionId !== sessionId) return;
      const item = {
        runId: params.runId,
        offset: params.offset,
        bytes: base64Bytes(params.dataBase64),
        row: rowOf(params.runId, params.commandId),
      };
      if (phaseRef.current === 'opening') early.push(item);
      else chain = chain.then(() => (live ? apply(item.runId, item.offset, item.bytes, item.row) : undefined));
      if (phaseRef.current === 'ended') setPhaseBoth('live');
    });

    (async () => {
      let rows: CommandRow[];
      let running = false;
      if (client) {
        const answer = await client.call('terminal.open', { sessionId, cols: terminal.cols, rows: terminal.rows });
        rows = answer.rows;
        running = answer.running;
        void saveTimelineSnapshot(sessionId, rows).catch(() => undefined);
      } else {
        rows = (await readTimelineSnapshot(sessionId))?.value.filter(isCommandRow) ?? [];
      }
      if (!live) return;
      rowsByRun = new Map(rows.map((row) => [row.runId, row]));
      const starts = replayStarts(rows);
      for (let i = 0; i < rows.length; i++) {
        const start = starts[i];
        const row = rows[i]!;
        if (start === null || start === undefined) continue;
        if (current) write(new TextEncoder().encode(SHELL_ENDED));
        const last = i === rows.length - 1 && running;
        const until = last && client ? Number.MAX_SAFE_INTEGER : row.byteLength;
        const end = await replayRow(client, sessionId, row, start, replay, until);
        current = { runId: row.runId, written: end };
        if (!live) return;
      }
      // Bytes that arrived during the replay, in order; then live ones go straight to the screen.
      for (let item = early.shift(); item; item = early.shift())
        await apply(item.runId, item.offset, item.bytes, rowsByRun.get(item.runId) ?? item.row);
      if (!live) return;
      setPhaseBoth(client ? (running ? 'live' : 'ended') : 'offline');
      if (client && running) terminal.focus();
    })().catch((e: unknown) => {
      if (!live) return;
      setProblem((e as Error).message);
      setPhaseBoth('failed');
    });
    return () => {
      live = false;
      stop?.();
    };
  }, [client, sessionId, generation]);

  const key = (data: string) => {
    send(ctrlRef.current ? withCtrl(data) : data);
    if (ctrlRef.current) armCtrl(false);
    term.current?.focus();
  };
  const arrow = (which: ArrowKey) => key(arrowKey(which, term.current?.modes.applicationCursorKeysMode ?? false));
  const copy = () => {
    const text = term.current?.getSelection() ?? '';
    if (text)
      void navigator.clipboard
        .writeText(text)
        .catch((e: unknown) => setProblem(`Could not copy: ${(e as Error).message}`));
    term.current?.focus();
  };
  const paste = () => {
    navigator.clipboard.readText().then(
      (text) => {
        if (text) term.current?.paste(text);
        term.current?.focus();
      },
      (e: unknown) => setProblem(`Could not paste: ${(e as Error).message}`),
    );
  };
  // Key row buttons keep the focus (and the phone's keyboard) on the terminal.
  const keep = (event: React.MouseEvent) => event.preventDefault();
  const canType = client !== null && phase === 'live';

  return (
    <div className="terminal-screen">
      <div className="topbar" style={{ borderBottom: 'none' }}>
        <button onClick={onBack} aria-label="Back to sessions">
          <ArrowLeft size={20} aria-hidden="true" focusable="false" />
        </button>
        <SessionTitle client={client} session={session} onRenamed={onRenamed} />
        <span className="pill">terminal</span>
      </div>
      {phase === 'offline' && (
        <p className="terminal-notice muted" role="status">
          Offline: the scrollback this device saved. Keys go to the shell once the computer is back.
        </p>
      )}
      {phase === 'ended' && (
        <p className="terminal-notice" role="status">
          <span className="grow">The shell ended.</span>
          <button className="primary" onClick={() => setGeneration((n) => n + 1)}>
            New shell
          </button>
        </p>
      )}
      {problem && (
        <p className="terminal-notice error" role="alert">
          {problem}
        </p>
      )}
      <div className="terminal-host" ref={host} data-terminal-phase={phase} aria-label="Terminal" role="region" />
      <div className="terminal-keys" role="toolbar" aria-label="Terminal keys">
        <button onMouseDown={keep} disabled={!canType} onClick={() => key(TERMINAL_KEYS.escape)}>
          Esc
        </button>
        <button onMouseDown={keep} disabled={!canType} onClick={() => key(TERMINAL_KEYS.tab)}>
          Tab
        </button>
        <button onMouseDown={keep} disabled={!canType} aria-pressed={ctrl} onClick={() => armCtrl(!ctrlRef.current)}>
          Ctrl
        </button>
        <button onMouseDown={keep} disabled={!canType} aria-label="Left" onClick={() => arrow('left')}>
          <ArrowLeft size={16} aria-hidden />
        </button>
        <button onMouseDown={keep} disabled={!canType} aria-label="Up" onClick={() => arrow('up')}>
          <ArrowUp size={16} aria-hidden />
        </button>
        <button onMouseDown={keep} disabled={!canType} aria-label="Down" onClick={() => arrow('down')}>
          <ArrowDown size={16} aria-hidden />
        </button>
        <button onMouseDown={keep} disabled={!canType} aria-label="Right" onClick={() => arrow('right')}>
          <ArrowRight size={16} aria-hidden />
        </button>
        <button onMouseDown={keep} disabled={!canType} onClick={() => key('|')}>
          |
        </button>
        <button onMouseDown={keep} disabled={!canType} onClick={() => key('~')}>
          ~
        </button>
        <span className="terminal-keys-gap" />
        <button onMouseDown={keep} aria-label="Copy" title="Copy the selection" onClick={copy}>
          <Copy size={16} aria-hidden />
        </button>
        <button onMouseDown={keep} disabled={!canType} aria-label="Paste" title="Paste" onClick={paste}>
          <ClipboardPaste size={16} aria-hidden />
        </button>
      </div>
    </div>
  );
}
