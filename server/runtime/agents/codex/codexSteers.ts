import { z } from 'zod';
import type { SteerMessage } from '../agent';
import { UserMessageSchema } from './codexItemSchemas';
import { userMessageText } from './codexItems';
import { CODEX } from './codexProtocol';

const ItemEventSchema = z.object({ threadId: z.string(), item: z.object({ type: z.string() }).passthrough() });
const TurnEndSchema = z.object({ turn: z.object({ status: z.string() }).passthrough() });

/** Codex item types that only an answer of the model starts (ACC-6). */
const MODEL_ITEM_TYPES = new Set([
  'agentMessage',
  'reasoning',
  'commandExecution',
  'fileChange',
  'mcpToolCall',
  'dynamicToolCall',
  'webSearch',
  'plan',
  'collabAgentToolCall',
  'imageView',
]);

/**
 * The steering messages of one Codex turn on their way to its model (ACC-6). turn/steer is
 * answered as soon as Codex queued the input: that is not delivery. Codex records queued input as a
 * userMessage item (with the clientUserMessageId it was sent with) right before its next model
 * request; an item that only a model answer starts, or the turn completing, after that shows the
 * request was sent and answered, and only then is the message reached.
 */
export class CodexSteers {
  private readonly waiting = new Map<string, { message: SteerMessage; recorded: boolean }>();

  constructor(private readonly threadId: string) {}

  add(message: SteerMessage): void {
    this.waiting.set(message.operationId, { message, recorded: false });
  }

  remove(clientId: string): void {
    this.waiting.delete(clientId);
  }

  /** One event of the app-server; only the turn's own thread counts. */
  notify(method: string, params: unknown): void {
    if (this.waiting.size === 0) return;
    if (method === CODEX.turnCompleted) {
      if (TurnEndSchema.safeParse(params).data?.turn.status === 'completed') this.reachRecorded();
      return;
    }
    if (method !== CODEX.itemStarted && method !== CODEX.itemCompleted) return;
    const event = ItemEventSchema.safeParse(params);
    if (!event.success || event.data.threadId !== this.threadId) return;
    const user = UserMessageSchema.safeParse(event.data.item);
    if (user.success) {
      this.markRecorded(user.data.clientId ?? null, userMessageText(user.data));
      return;
    }
    if (method === CODEX.itemStarted && MODEL_ITEM_TYPES.has(event.data.item.type)) this.reachRecorded();
  }

  private markRecorded(clientId: string | null, text: string): void {
    const byId = clientId === null ? undefined : this.waiting.get(clientId);
    const entry = byId ?? [...this.waiting.values()].find((w) => !w.recorded && w.message.text === text);
    if (entry) entry.recorded = true;
  }

  private reachRecorded(): void {
    for (const [clientId, entry] of this.waiting) {
      if (!entry.recorded) continue;
      this.waiting.delete(clientId);
      entry.message.reached();
    }
  }
}
