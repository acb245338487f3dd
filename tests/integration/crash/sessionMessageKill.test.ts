import { spawn } from 'node:child_process';
import readline from 'node:readline';
import { describe, expect, it } from 'vitest';
import { sessionMessageOperationId } from '../../../server/runtime/sendLedger/sessionMessages';
import { bundledProgramArgs } from '../../fixtures/bundledPrograms';
import { openSessionMessageStore } from '../../fixtures/sessionMessageStore';
import { makeTempDir } from '../../fixtures/tempDir';

/** Runs the child until it waits inside the transaction after writing to `table`, then kills it by SIGKILL. */
async function killInsideSend(dataDir: string, table: string, sender: string, recipient: string): Promise<void> {
  const child = spawn(
    process.execPath,
    [...bundledProgramArgs('tests/fixtures/sessionMessageKillChild.ts'), dataDir, table, sender, recipient],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
  const lines = readline.createInterface({ input: child.stdout });
  for await (const line of lines) {
    if (line !== 'paused') continue;
    child.kill('SIGKILL');
    break;
  }
  expect({ signal: await exited, stderr }).toEqual({ signal: 'SIGKILL', stderr: '' });
}

describe('MSG-2 a SIGKILL inside the accepting transaction leaves neither the queue entry nor the record', () => {
  it('MSG-2 killed after the run, after the record or after the outbox entry was written: nothing of the message is there, and the call then goes through once', async () => {
    for (const table of ['runs', 'chat_session_messages', 'chat_outbox']) {
      const dataDir = makeTempDir('hbcode-session-message-kill-');
      const setup = openSessionMessageStore(dataDir);
      const sender = setup.newSession('Asker');
      const recipient = setup.newSession('Helper');
      setup.db.close();
      await killInsideSend(dataDir, table, sender, recipient);
      const store = openSessionMessageStore(dataDir);
      const operationId = sessionMessageOperationId(sender, 'call-killed');
      expect({ table, rows: store.rowsOf(recipient, operationId) }).toEqual({
        table,
        rows: { runs: 0, outbox: 0, identity: 0, records: 0 },
      });
      store.messages.send({
        senderSessionId: sender,
        senderCallId: 'call-killed',
        senderRunId: null,
        recipientSessionId: recipient,
        text: 'Are the tests green?',
        needsApproval: false,
      });
      expect(store.rowsOf(recipient, operationId)).toEqual({ runs: 1, outbox: 1, identity: 1, records: 1 });
      store.db.close();
    }
  });
});
