import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RpcClient } from '../../../lib/client/rpcClient';
import type { MessageRow, TimelineRow } from '../../../lib/protocol/rows';
import { AGENT_INSTALL_TIMEOUT_MS, AGENT_TEST_TIMEOUT_MS, installedAgents } from '../../fixtures/agentPackages';
import { createAgentSession, messageState, waitForRows } from '../../fixtures/agentSessions';
import { claudeEnv } from '../../fixtures/fakeClaudeModel';
import { codexConfigToml } from '../../fixtures/fakeCodexModel';
import { startFakeModelServer, type FakeModelServer, type RecordedRequest } from '../../fixtures/fakeModelServer';
import { expectRpcError } from '../../fixtures/rpcErrors';
import {
  askerScript,
  claudeTurnText,
  helperScript,
  messagingModels,
  type MessagingSessions,
} from '../../fixtures/sessionMessageModels';
import { startRuntimeProcess, type RuntimeProcess } from '../../fixtures/runtimeProcess';

const messagesOf = (rows: TimelineRow[]): MessageRow[] => rows.filter((r): r is MessageRow => r.kind === 'message');
const fromSession = (rows: TimelineRow[]) => messagesOf(rows).filter((r) => r.fromSession);
const toolCalls = (rows: TimelineRow[]) =>
  rows.filter((r) => r.kind === 'toolCall' && r.tool === 'mcp:hbcode/send_message');

describe('MSG-1 MSG-2 MSG-3 MSG-4 messages between a Codex and a Claude session, with the real agents', () => {
  let model: FakeModelServer;
  let runtime: RuntimeProcess;
  let client: RpcClient;
  let configDir: string;
  let asker = '';
  let helper = '';
  /** Every model request, to count the turns each message started. */
  const requests: RecordedRequest[] = [];

  const ids: MessagingSessions = { asker: '', helper: '' };
  const codex = askerScript(ids);
  const claude = helperScript(ids);

  beforeAll(async () => {
    const { codexBin, claudeBin } = installedAgents();
    const answer = messagingModels(codex, claude);
    model = await startFakeModelServer((request) => {
      requests.push(request);
      return answer(request);
    });
    configDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hbcode-session-messages-claude-'));
    runtime = await startRuntimeProcess({
      env: {
        ...claudeEnv(model.url, configDir, claudeBin),
        HBCODE_CODEX_BIN: codexBin,
        HBCODE_CODEX_CONFIG_TOML: codexConfigToml(model.url),
      },
    });
    client = await runtime.connect();
    ids.asker = await createAgentSession(client, 'codex');
    ids.helper = await createAgentSession(client, 'claude');
    ({ asker, helper } = ids);
  }, AGENT_INSTALL_TIMEOUT_MS);
  afterAll(async () => {
    client?.close();
    await runtime?.stop();
    await model?.close();
    if (configDir) fs.rmSync(configDir, { recursive: true, force: true });
  });

  it(
    'MSG-1 MSG-2 a Codex session asks a Claude session through the session tool and gets the answer back as a message of its own, each once',
    async () => {
      const { runId } = await client.call('chat.send', {
        sessionId: asker,
        operationId: crypto.randomUUID(),
        text: 'ASK-HELPER please',
      });
      // The helper's answer arrives in the asker as a message from the helper, and the asker's agent takes it.
      const askerRows = await waitForRows(client, asker, (rows) => {
        const answer = fromSession(rows).find((r) => r.text === 'ANSWER 42');
        return messageState(rows, runId) === 'done' && answer?.state === 'done';
      });
      const helperRows = await waitForRows(client, helper, (rows) => fromSession(rows).some((r) => r.state === 'done'));
      expect(fromSession(helperRows)).toEqual([
        expect.objectContaining({
          text: 'QUESTION what is six times seven?',
          state: 'done',
          fromSession: { sessionId: asker, title: 'New codex session', hop: 1, delivery: 'sent' },
        }),
      ]);
      expect(fromSession(askerRows)).toEqual([
        expect.objectContaining({
          text: 'ANSWER 42',
          fromSession: { sessionId: helper, title: 'New claude session', hop: 2, delivery: 'sent' },
        }),
      ]);
      // Both senders' timelines hold their tool call, done, naming the recipient.
      expect(toolCalls(askerRows)).toEqual([
        expect.objectContaining({
          status: 'completed',
          input: expect.objectContaining({ text: expect.stringContaining(helper) }),
        }),
      ]);
      const helperCalls = await waitForRows(
        client,
        helper,
        (rows) => toolCalls(rows).length === 1 && toolCalls(rows)[0]!.kind === 'toolCall',
      );
      expect(toolCalls(helperCalls)).toEqual([expect.objectContaining({ status: 'completed' })]);
      // The agents saw who wrote: the message's text came with its sender.
      const claudeTurn = requests.filter(
        (r) => r.url.startsWith('/v1/messages') && JSON.stringify(r.body).includes('QUESTION what is six times seven?'),
      );
      expect(JSON.stringify(claudeTurn[0]!.body)).toContain(`session id ${asker}`);
      expect(
        await waitForRows(client, asker, (rows) =>
          rows.some((r) => r.kind === 'agentText' && r.text === 'Heard ANSWER 42'),
        ),
      ).toBeTruthy();
    },
    AGENT_TEST_TIMEOUT_MS,
  );

  it(
    'MSG-3 two agents that keep answering each other stop at the hop limit with a tool error',
    async () => {
      const { runId } = await client.call('chat.send', {
        sessionId: asker,
        operationId: crypto.randomUUID(),
        text: 'Start the loop: PING 1',
      });
      // Hops 1 (asker → helper) to 4 (helper → asker) go through; hop 5 is refused in the asker.
      const askerRows = await waitForRows(
        client,
        asker,
        (rows) =>
          rows.some((r) => r.kind === 'agentText' && r.text === 'Stopped: HOP LIMIT') &&
          messageState(rows, runId) === 'done',
      );
      const helperRows = (await client.call('sessions.timeline', { sessionId: helper })).rows;
      const pings = (rows: TimelineRow[]) => fromSession(rows).filter((r) => r.text.startsWith('PING'));
      expect(pings(helperRows).map((r) => [r.text, r.fromSession!.hop])).toEqual([
        ['PING 2', 1],
        ['PING 4', 3],
      ]);
      expect(pings(askerRows).map((r) => [r.text, r.fromSession!.hop])).toEqual([
        ['PING 3', 2],
        ['PING 5', 4],
      ]);
      const refused = toolCalls(askerRows).at(-1)!;
      expect(refused).toMatchObject({ input: expect.objectContaining({ text: expect.stringContaining('PING 6') }) });
      expect(JSON.stringify(refused)).toContain('at most 4');
      // Nothing was queued for the refused hop.
      expect(
        fromSession((await client.call('sessions.timeline', { sessionId: helper })).rows).some(
          (r) => r.text === 'PING 6',
        ),
      ).toBe(false);
    },
    AGENT_TEST_TIMEOUT_MS,
  );

  it(
    'MSG-4 a message to a session that needs approval waits, through a runtime SIGKILL and restart, is delivered once when approved, and a second answer is a conflict; dropping a held message declines it',
    async () => {
      await client.call('sessions.configure', { sessionId: helper, settings: { messages: { needApproval: true } } });
      const claudeTurns = () =>
        requests.filter((r) => r.url.startsWith('/v1/messages') && claudeTurnText(r).includes('QUESTION')).length;
      const turnsBefore = claudeTurns();
      const { runId } = await client.call('chat.send', {
        sessionId: asker,
        operationId: crypto.randomUUID(),
        text: 'ASK-HELPER again',
      });
      await waitForRows(client, asker, (rows) => messageState(rows, runId) === 'done');
      const waiting = await waitForRows(client, helper, (rows) =>
        fromSession(rows).some((r) => r.fromSession!.delivery === 'needs-approval'),
      );
      const held = fromSession(waiting).find((r) => r.fromSession!.delivery === 'needs-approval')!;
      expect(held.state).toBe('queued');
      const { approvals } = await client.call('approvals.list', { sessionId: helper });
      const approval = approvals.find((a) => a.kind === 'message')!;
      expect(approval).toMatchObject({
        runId: held.runId,
        command: 'QUESTION what is six times seven?',
        decision: null,
      });
      expect(claudeTurns()).toBe(turnsBefore);

      // A SIGKILL of the runtime: the message still waits after the restart, its approval open, and
      // the agents get the tool server again under the new start's channel and keys.
      client.close();
      await runtime.kill();
      runtime = await runtime.restart();
      client = await runtime.connect();
      const afterRestart = (await client.call('approvals.list', { sessionId: helper })).approvals.find(
        (a) => a.id === approval.id,
      );
      expect(afterRestart).toMatchObject({ decision: null, expired: null });
      expect(
        fromSession((await client.call('sessions.timeline', { sessionId: helper })).rows).find(
          (r) => r.runId === held.runId,
        ),
      ).toMatchObject({
        state: 'queued',
        fromSession: { delivery: 'needs-approval' },
      });
      expect(claudeTurns()).toBe(turnsBefore);

      await client.call('approvals.answer', { sessionId: helper, approvalId: approval.id, decision: 'accept' });
      await expectRpcError(
        client.call('approvals.answer', { sessionId: helper, approvalId: approval.id, decision: 'decline' }),
        'conflict',
      );
      const delivered = await waitForRows(client, helper, (rows) => messageState(rows, held.runId) === 'done');
      expect(fromSession(delivered).find((r) => r.runId === held.runId)!.fromSession!.delivery).toBe('sent');
      // Its turn ran once, and its answer reached the asker.
      await waitForRows(client, asker, (rows) => fromSession(rows).filter((r) => r.text === 'ANSWER 42').length === 2);
      // One turn per question: the first test's and this one, the held message handed on once.
      const turnStarts = requests.filter(
        (r) => r.url.startsWith('/v1/messages') && claudeTurnText(r).includes('QUESTION'),
      );
      expect(turnStarts).toHaveLength(2);

      // Dropping a held message (run.cancel, as on its row) declines it: its card goes and its agent never gets it.
      const third = await client.call('chat.send', {
        sessionId: asker,
        operationId: crypto.randomUUID(),
        text: 'ASK-HELPER a third time',
      });
      await waitForRows(client, asker, (rows) => messageState(rows, third.runId) === 'done');
      const heldAgain = fromSession(
        await waitForRows(client, helper, (rows) =>
          fromSession(rows).some((r) => r.fromSession!.delivery === 'needs-approval'),
        ),
      ).find((r) => r.fromSession!.delivery === 'needs-approval')!;
      await client.call('run.cancel', { sessionId: helper, runId: heldAgain.runId });
      const dropped = fromSession((await client.call('sessions.timeline', { sessionId: helper })).rows).find(
        (r) => r.runId === heldAgain.runId,
      );
      expect(dropped).toMatchObject({ state: 'cancelled', fromSession: { delivery: 'declined' } });
      expect(
        (await client.call('approvals.list', { sessionId: helper })).approvals.filter(
          (a) => a.kind === 'message' && a.decision === null,
        ),
      ).toEqual([]);
      expect(
        requests.filter((r) => r.url.startsWith('/v1/messages') && claudeTurnText(r).includes('QUESTION')),
      ).toHaveLength(2);
    },
    AGENT_TEST_TIMEOUT_MS,
  );
});
