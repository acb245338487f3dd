import { z } from 'zod';
import { CommandRowSchema } from './rows';

/** Largest keystroke frame `terminal.input` takes (TERM-2): a paste of this many UTF-16 units at most. */
export const MAX_TERMINAL_INPUT_CHARS = 64 * 1024;
/** Bounds of a terminal's size (TERM-2). */
export const TERMINAL_COLS = { min: 2, max: 1000 } as const;
export const TERMINAL_ROWS = { min: 1, max: 500 } as const;

const Id = z.string().min(1).max(200);
const Cols = z.number().int().min(TERMINAL_COLS.min).max(TERMINAL_COLS.max);
const Rows = z.number().int().min(TERMINAL_ROWS.min).max(TERMINAL_ROWS.max);

/** Terminal sessions (TERM-1…TERM-6): a login shell in a PTY whose screen bytes are command output (OUT-1). */
export const terminalMethods = {
  /**
   * Attaches to a terminal session: starts its shell at this size when none runs (after a
   * restart, or when the last one exited), and answers its shells' output rows, oldest first,
   * the running one last. The bytes are read with `run.chatCommandOutputRead` (TERM-3).
   */
  'terminal.open': {
    params: z.object({ sessionId: Id, cols: Cols, rows: Rows }).strict(),
    result: z.object({ rows: z.array(CommandRowSchema), running: z.boolean() }),
  },
  /** Keystrokes (or a paste) to the running shell, as text; the PTY gets its UTF-8 bytes (TERM-2). */
  'terminal.input': {
    params: z.object({ sessionId: Id, data: z.string().min(1).max(MAX_TERMINAL_INPUT_CHARS) }).strict(),
    result: z.object({}),
  },
  /** The screen's size in character cells (TERM-2); the shell gets SIGWINCH. */
  'terminal.resize': {
    params: z.object({ sessionId: Id, cols: Cols, rows: Rows }).strict(),
    result: z.object({}),
  },
} as const;

/**
 * The running shell's bytes as they arrive, to every device (TERM-4): `offset` is where they
 * start in the command's output, so a client that missed some reads the gap from the store.
 */
export const TerminalOutputSchema = z.object({
  sessionId: z.string(),
  runId: z.string(),
  commandId: z.string(),
  offset: z.number().int().nonnegative(),
  dataBase64: z.string(),
});
