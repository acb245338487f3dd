import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HistoryEntry } from '../../../server/runtime/agents/agent';
import { locateClaude } from '../../../server/runtime/agents/agentLocator';
import { ClaudeTurnRecords } from '../../../server/runtime/agents/claude/claudeTurnRecords';
import type { AgentItem } from '../../../lib/protocol/rows';
import { AGENT_INSTALL_TIMEOUT_MS, AGENT_TEST_TIMEOUT_MS, installedAgents } from '../../fixtures/agentPackages';
import { claudeProjectFolder, startClaudeAdapter, type ClaudeAdapterHarness } from '../../fixtures/claudeAdapter';

const PAIRS = 1000;
const PAGE = 250;

interface SavedMessage {
  type: string;
  uuid: string;
  timestamp?: string;
  message: { id?: string; content: unknown };
}

interface Sdk {
  getSessionMessages(
    id: string,
    options: { dir: string; offset: number; limit: number; includeSystemMessages: boolean },
  ): Promise<SavedMessage[]>;
}

/** Every this many pairs the app kept a turn record (TL-6); 125 puts one at each page's last message. */
const RECORD_EVERY = 5;

function turnEnd(question: string, createdAt: number): AgentItem {
  return {
    kind: 'turnEnd',
    itemId: `turn:${question}`,
    parentItemId: null,
    createdAt,
    status: 'completed',
    durationMs: 1200,
    usage: { inputTokens: 3, outputTokens: 2, cachedInputTokens: 0, reasoningTokens: null },
    costUsd: 0.001,
    error: null,
  };
}

/**
 * A saved conversation of question/answer pairs, written the way Claude Code keeps one (the test
 * may; the runtime never does), and the app's turn records of some of its turns, by the answer they follow.
 */
function writeTranscript(
  harness: ClaudeAdapterHarness,
  sessionId: string,
  nativeSessionId: string,
): Map<string, AgentItem> {
  const records = new ClaudeTurnRecords(harness.db);
  const recorded = new Map<string, AgentItem>();
  const folder = claudeProjectFolder(harness.configDir, harness.projectDir);
  fs.mkdirSync(folder, { recursive: true });
  const lines: string[] = [];
  let parentUuid: string | null = null;
  const base = Date.parse('2026-01-01T00:00:00.000Z');
  const common = {
    isSidechain: false,
    userType: 'external',
    cwd: fs.realpathSync(harness.projectDir),
    sessionId: nativeSessionId,
    version: '2.1.0',
  };
  for (let i = 0; i < PAIRS; i++) {
    const question = crypto.randomUUID();
    lines.push(
      JSON.stringify({
        ...common,
        parentUuid,
        type: 'user',
        uuid: question,
        timestamp: new Date(base + 2 * i * 1000).toISOString(),
        message: { role: 'user', content: `question ${i}` },
      }),
    );
    const answer = crypto.randomUUID();
    const message = {
      id: `msg_${i}`,
      type: 'message',
      role: 'assistant',
      model: 'claude-test',
      content: [{ type: 'text', text: `answer ${i}` }],
      stop_reason: 'end_turn',
      stop_sequence: null,
      usage: { input_tokens: 1, output_tokens: 1 },
    };
    lines.push(
      JSON.stringify({
        ...common,
        parentUuid: question,
        type: 'assistant',
        uuid: answer,
        timestamp: new Date(base + (2 * i + 1) * 1000).toISOString(),
        message,
      }),
    );
    parentUuid = answer;
    if (i % RECORD_EVERY === RECORD_EVERY - 1) {
      const end = turnEnd(question, base + (2 * i + 1) * 1000 + 500);
      records.save(sessionId, question, answer, end);
      recorded.set(answer, end);
    }
  }
  fs.writeFileSync(path.join(folder, `${nativeSessionId}.jsonl`), lines.join('\n') + '\n');
  return recorded;
}

/** What each saved message is on the timeline, derived here from the SDK's own answer, and the app's record that follows it. */
function expectedEntries(message: SavedMessage, recorded: Map<string, AgentItem>): HistoryEntry[] {
  const record = recorded.get(message.uuid);
  return record ? [expectedEntry(message), { kind: 'item', item: record }] : [expectedEntry(message)];
}

function expectedEntry(message: SavedMessage): HistoryEntry {
  const createdAt = Date.parse(message.timestamp ?? '');
  if (message.type === 'user')
    return {
      kind: 'user',
      itemId: message.uuid,
      text: String(message.message.content),
      createdAt,
      clientId: message.uuid,
    };
  const [block] = message.message.content as { text: string }[];
  return {
    kind: 'item',
    item: {
      kind: 'agentText',
      itemId: `${message.message.id}:0`,
      parentItemId: null,
      createdAt,
      text: block!.text,
      streaming: false,
    },
  };
}

describe('a long saved Claude conversation, page by page through the agent (TL-4)', () => {
  let harness: ClaudeAdapterHarness;
  let sdk: Sdk;
  let sessionId: string;
  let nativeSessionId: string;
  let recorded: Map<string, AgentItem>;

  beforeAll(async () => {
    installedAgents();
    harness = startClaudeAdapter('http://127.0.0.1:9');
    ({ sessionId, nativeSessionId } = harness.newSession());
    recorded = writeTranscript(harness, sessionId, nativeSessionId);
    sdk = (await import(pathToFileURL(locateClaude()!.sdkModule).href)) as Sdk;
  }, AGENT_INSTALL_TIMEOUT_MS);
  afterAll(() => harness?.close());

  it(
    `TL-4 ${2 * PAIRS} items page from the newest back to the first, each page equal to the SDK's own messages for that range`,
    async () => {
      const total = 2 * PAIRS;
      const pages: HistoryEntry[][] = [];
      let before: string | null = null;
      let newestAfter: string | null = null;
      for (let k = 0; k * PAGE < total + PAGE; k++) {
        const page = await harness.agent.historyPage({
          sessionId,
          cwd: harness.projectDir,
          parentItemId: null,
          before,
          after: null,
          limit: PAGE,
        });
        const end = total - k * PAGE;
        const start = Math.max(0, end - PAGE);
        const saved = await sdk.getSessionMessages(nativeSessionId, {
          dir: harness.projectDir,
          offset: start,
          limit: end - start,
          includeSystemMessages: true,
        });
        expect(saved).toHaveLength(end - start);
        expect(page.entries, `page ${k}: messages ${start}..${end}`).toEqual(
          saved.flatMap((message) => expectedEntries(message, recorded)),
        );
        expect(page.newer === null).toBe(k === 0);
        pages.unshift(page.entries);
        if (k === 1) newestAfter = page.newer;
        if (page.older === null) {
          expect(start).toBe(0);
          break;
        }
        before = page.older;
      }
      expect(pages).toHaveLength(total / PAGE);
      const all = pages.flat();
      // TL-6: exactly the app's turn records were added, each once.
      expect(all).toHaveLength(total + PAIRS / RECORD_EVERY);
      expect(all.filter((e) => e.kind === 'item' && e.item.kind === 'turnEnd')).toEqual(
        [...recorded.values()].map((item) => ({ kind: 'item', item })),
      );
      expect(all[0]).toMatchObject({ kind: 'user', text: 'question 0' });
      expect(all.at(-2)).toMatchObject({ kind: 'item', item: { text: `answer ${PAIRS - 1}` } });
      expect(all.at(-1)).toMatchObject({ kind: 'item', item: { kind: 'turnEnd' } });
      // A newer cursor pages forward again to the same entries.
      const forward = await harness.agent.historyPage({
        sessionId,
        cwd: harness.projectDir,
        parentItemId: null,
        before: null,
        after: newestAfter,
        limit: PAGE,
      });
      expect(forward.entries).toEqual(pages.at(-1));
    },
    AGENT_TEST_TIMEOUT_MS,
  );
});
