/**
 * The host side of the control lines (ACC-4, ACC-6): while a run is under way the host hands it
 * the permission answers, steering messages and interrupts sent with its id. Runs inside the agent host.
 */
import type { HostControl, HostEvent, PermissionAnswer } from './hostProtocol';

/** Where a run's control lines come from: each line for it, and once, the end of them (cancel, runtime gone). */
export interface ControlSource {
  onControl(handler: (control: HostControl) => void): void;
  onGone(handler: () => void): void;
}

/** A user message as the SDK's streaming input takes it. */
export interface SdkUserMessage {
  type: 'user';
  uuid: string;
  session_id: string;
  parent_tool_use_id: null;
  /** Text, or content blocks (text and images, ATT-2). */
  message: { role: 'user'; content: string | unknown[] };
}

export function userMessage(uuid: string, content: string | unknown[]): SdkUserMessage {
  return { type: 'user', uuid, session_id: '', parent_tool_use_id: null, message: { role: 'user', content } };
}

/**
 * The streaming input of one run: the first message, then steering messages while the turn runs
 * (ACC-6). Claude Code folds a message that arrives before its next model request into the same
 * turn; one that arrives later starts another turn after the result. So the input ends at a result
 * unless a message came in after the last tool result, which then gets its own turn.
 */
export class PromptQueue {
  private readonly waiting: SdkUserMessage[] = [];
  private wake: (() => void) | null = null;
  private closed = false;
  private unfolded = 0;
  private firstUuid: string | undefined;

  /** `taken`: a steering message was handed to the SDK (ACC-6); the first message is not one. */
  constructor(
    first: SdkUserMessage,
    private readonly taken: (message: SdkUserMessage) => void = () => undefined,
  ) {
    this.waiting.push(first);
    this.firstUuid = first.uuid;
  }

  push(message: SdkUserMessage): void {
    if (this.closed) return;
    this.waiting.push(message);
    this.unfolded += 1;
    this.wake?.();
  }

  /** A tool result went back to the model: messages so far ride along with the next request. */
  toolResultSent(): void {
    this.unfolded = 0;
  }

  /** A result arrived: true when the input stays open for a turn still to come. */
  resultArrived(): boolean {
    if (this.unfolded > 0) {
      this.unfolded = 0;
      return true;
    }
    this.close();
    return false;
  }

  close(): void {
    this.closed = true;
    this.wake?.();
  }

  async *messages(): AsyncGenerator<SdkUserMessage> {
    for (;;) {
      const next = this.waiting.shift();
      if (next) {
        if (next.uuid !== this.firstUuid) this.taken(next);
        yield next;
        continue;
      }
      if (this.closed) return;
      await new Promise<void>((resolve) => (this.wake = resolve));
      this.wake = null;
    }
  }
}

type Emit = (event: HostEvent) => void;

/** Permission requests waiting for the runtime's answer, by request id. */
export class ControlChannel {
  private readonly pending = new Map<string, (answer: PermissionAnswer) => void>();
  private nextId = 0;

  constructor(
    source: ControlSource,
    private readonly emit: Emit,
    handlers: { steer(text: string, messageUuid: string): void; interrupt(): void; gone(): void },
  ) {
    source.onControl((control) => {
      if (control.type === 'permissionAnswer') {
        this.pending.get(control.requestId)?.(control.result);
        this.pending.delete(control.requestId);
      } else if (control.type === 'steer') handlers.steer(control.text, control.messageUuid);
      else handlers.interrupt();
    });
    // The runtime is gone: nobody can answer, so the run stops.
    source.onGone(() => {
      for (const answer of this.pending.values())
        answer({ behavior: 'deny', message: 'The runtime that asked for this approval stopped.' });
      this.pending.clear();
      handlers.gone();
    });
  }

  /** canUseTool for the SDK: asks the runtime and waits for its answer (ACC-4). */
  canUseTool = (
    toolName: string,
    input: Record<string, unknown>,
    options: {
      signal: AbortSignal;
      suggestions?: unknown[];
      title?: string;
      decisionReason?: string;
      toolUseID?: string;
    },
  ): Promise<PermissionAnswer> => {
    const requestId = String((this.nextId += 1));
    const suggestions = (options.suggestions ?? []).filter(
      (s): s is Record<string, unknown> => typeof s === 'object' && s !== null,
    );
    return new Promise((resolve) => {
      this.pending.set(requestId, resolve);
      options.signal.addEventListener(
        'abort',
        () => {
          this.pending.delete(requestId);
          resolve({ behavior: 'deny', message: 'The turn was stopped.' });
        },
        { once: true },
      );
      this.emit({
        type: 'permission',
        requestId,
        toolName,
        input,
        suggestions,
        title: options.title ?? null,
        reason: options.decisionReason ?? null,
        toolUseId: options.toolUseID ?? null,
      });
    });
  };
}
