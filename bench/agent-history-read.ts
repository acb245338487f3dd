/**
 * OUT-7's price: one 256 KiB slice of a Claude Bash result, read through the account's long-lived
 * agent host (SES-8), against the same slice of the same bytes from a desktop artifact
 * (a shell command's output), both through `run.chatCommandOutputRead`. Real Claude Code against
 * the fake model server of the tests; no target, the line shows what a reader pays.
 */
import fs from 'node:fs';
import path from 'node:path';
import { MAX_COMMAND_OUTPUT_RANGE_BYTES } from '../lib/protocol/version';
import type { RpcClient } from '../lib/client/rpcClient';
import type { CommandRow } from '../lib/protocol/rows';
import { writeSeededLines } from '../tests/fixtures/agentOutput';
import { installedAgents } from '../tests/fixtures/agentPackages';
import { createAgentSession, sendAndWait } from '../tests/fixtures/agentSessions';
import { claudeEnv, claudeTurnScript } from '../tests/fixtures/fakeClaudeModel';
import { startFakeModelServer } from '../tests/fixtures/fakeModelServer';
import { startRuntimeProcess } from '../tests/fixtures/runtimeProcess';
import { makeTempDir } from './lib/tempDirs';
import type { Benchmark, BenchOutcome } from './lib/report';
import { median, now } from './lib/rounds';

const OUTPUT_BYTES = 3 * 1024 * 1024;
const CLAUDE_READS = 5;
const ARTIFACT_READS = 50;

/** Times `count` 256 KiB slices of one command's output, checking every byte against what it printed. */
export async function timeReads(
  client: RpcClient,
  sessionId: string,
  row: CommandRow,
  count: number,
  expected: Buffer,
): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < count; i++) {
    const offset = (i * MAX_COMMAND_OUTPUT_RANGE_BYTES) % (expected.length - MAX_COMMAND_OUTPUT_RANGE_BYTES);
    const started = now();
    const { result, data } = await client.callBinary('run.chatCommandOutputRead', {
      appSessionId: sessionId,
      runId: row.runId,
      commandId: row.commandId,
      generation: row.generation,
      offset,
      length: MAX_COMMAND_OUTPUT_RANGE_BYTES,
    });
    samples.push(now() - started);
    if (
      result.byteCount !== MAX_COMMAND_OUTPUT_RANGE_BYTES ||
      !Buffer.from(data).equals(expected.subarray(offset, offset + MAX_COMMAND_OUTPUT_RANGE_BYTES))
    ) {
      throw new Error(
        `slice at ${offset} does not match what the command printed (${result.byteCount} bytes of ${JSON.stringify(result).slice(0, 300)}: ${Buffer.from(data).subarray(0, 200).toString()})`,
      );
    }
  }
  return samples;
}

export const agentHistoryRead: Benchmark = {
  name: 'agent-history-read',
  async run(progress): Promise<BenchOutcome> {
    progress('OUT-7: installing the pinned agents when missing');
    const agents = installedAgents();
    const model = await startFakeModelServer(claudeTurnScript(() => ({ command: 'cat big.txt' })));
    const configDir = makeTempDir('hbcode-bench-claude-');
    const runtime = await startRuntimeProcess({ env: claudeEnv(model.url, configDir, agents.claudeBin) });
    const client = await runtime.connect();
    try {
      const printed = writeSeededLines(path.join(runtime.projectDir, 'big.txt'), OUTPUT_BYTES, 'bench');
      progress('OUT-7: one Claude turn and one shell command print the same 3 MiB');
      const claudeSession = await createAgentSession(client, 'claude');
      const claudeRow = (await sendAndWait(client, claudeSession, 'Print big.txt')).commands[0]!;
      const shellSession = await createAgentSession(client, 'shell');
      const shellRow = (await sendAndWait(client, shellSession, 'cat big.txt')).commands[0]!;
      progress(`OUT-7: ${CLAUDE_READS} slices through the agent host, ${ARTIFACT_READS} from the artifact`);
      const claude = await timeReads(client, claudeSession, claudeRow, CLAUDE_READS, printed);
      const artifact = await timeReads(client, shellSession, shellRow, ARTIFACT_READS, printed);
      const transcriptBytes = fs
        .readdirSync(configDir, { recursive: true, encoding: 'utf8' })
        .filter((f) => f.endsWith('.jsonl'))
        .reduce((sum, f) => sum + fs.statSync(path.join(configDir, f)).size, 0);
      return {
        comparisons: [
          {
            rule: 'OUT-7',
            label: 'one 256 KiB slice of a 3 MiB result (median)',
            unit: 'ms',
            better: 'lower',
            oursName: 'Claude history (long-lived host)',
            referenceName: 'desktop artifact',
            ours: median(claude),
            reference: median(artifact),
            target: null,
          },
        ],
        parameters: { outputBytes: printed.length, claudeReads: CLAUDE_READS, artifactReads: ARTIFACT_READS },
        measurements: { claudeMs: claude, artifactMs: artifact, transcriptBytes },
        notes: [
          'Each Claude slice is a request to the one host of the account (SES-8); the first starts it and reads the conversation, the rest find the result kept (OUT-7).',
        ],
      };
    } finally {
      client.close();
      await runtime.stop();
      await model.close();
    }
  },
};
