import { describe, expect, it } from 'vitest';
import {
  PromptQueue,
  userMessage,
  type SdkUserMessage,
} from '../../../../server/runtime/agents/claude/claudeHostControl';

describe("Claude's streaming input (ACC-6)", () => {
  it('ACC-6 a steering message counts as taken only when the SDK pulls it; one pushed after the input closed is never taken', async () => {
    const taken: string[] = [];
    const queue = new PromptQueue(userMessage('first', 'Start'), (message) => taken.push(message.uuid));
    const input = queue.messages();
    const pulled: SdkUserMessage[] = [];
    pulled.push((await input.next()).value as SdkUserMessage);
    // The first message is the turn's own, not a steer.
    expect(taken).toEqual([]);
    queue.push(userMessage('steer-1', 'Also this'));
    expect(taken).toEqual([]);
    pulled.push((await input.next()).value as SdkUserMessage);
    expect(taken).toEqual(['steer-1']);
    // A result with no message after the last tool result closes the input: a late steer is dropped, not taken.
    expect(queue.resultArrived()).toBe(true);
    expect(queue.resultArrived()).toBe(false);
    queue.push(userMessage('steer-late', 'Too late'));
    expect((await input.next()).done).toBe(true);
    expect(taken).toEqual(['steer-1']);
    expect(pulled.map((m) => m.uuid)).toEqual(['first', 'steer-1']);
  });
});
