import { describe, expect, it } from 'vitest';
import { UnannouncedCommands } from '../../../../../server/runtime/agents/codex/codexUnannounced';

const raw = (item: unknown) => ({ threadId: 't1', turnId: 'u1', item });
// The model's call and the answer Codex 0.171 gave it for a write refused at once (rawResponseItem/completed).
const CALL = {
  type: 'function_call',
  name: 'exec_command',
  arguments: JSON.stringify({ cmd: 'echo no > x.txt' }),
  call_id: 'call_a',
};
const ANSWER = {
  type: 'function_call_output',
  call_id: 'call_a',
  output:
    'Chunk ID: dc44ab\nWall time: 0.0000 seconds\nProcess exited with code 1\nOriginal token count: 12\nOutput:\n/bin/bash: line 1: x.txt: Read-only file system\n',
};

describe('commands Codex never announced (SBX-2)', () => {
  it('SBX-2 a shell call the model got an answer for, and no item announced, becomes a command with its exit code and output', () => {
    const commands = new UnannouncedCommands();
    commands.note(raw(CALL));
    commands.note(raw(ANSWER));
    expect(commands.missing(() => false)).toEqual([
      {
        type: 'commandExecution',
        id: 'call_a',
        command: 'echo no > x.txt',
        status: 'failed',
        exitCode: 1,
        aggregatedOutput: '/bin/bash: line 1: x.txt: Read-only file system\n',
      },
    ]);
  });

  it('SBX-2 announced commands, calls without an answer and other tools are left alone', () => {
    const commands = new UnannouncedCommands();
    commands.note(raw(CALL));
    commands.note(raw(ANSWER));
    commands.note(
      raw({ type: 'function_call', name: 'exec_command', arguments: '{"cmd":"sleep 9"}', call_id: 'call_b' }),
    );
    commands.note(raw({ type: 'function_call', name: 'update_plan', arguments: '{}', call_id: 'call_c' }));
    commands.note(raw({ type: 'function_call_output', call_id: 'call_c', output: 'ok' }));
    commands.note({ not: 'an item' });
    expect(commands.missing((id) => id === 'call_a')).toEqual([]);
    expect(commands.missing(() => false).map((c) => c.id)).toEqual(['call_a']);
  });

  it('SBX-2 an answer in content parts and a successful exit read as completed', () => {
    const commands = new UnannouncedCommands();
    commands.note(raw({ ...CALL, arguments: JSON.stringify({ command: ['bash', '-lc', 'true'] }) }));
    commands.note(
      raw({
        type: 'function_call_output',
        call_id: 'call_a',
        output: [{ type: 'input_text', text: 'Process exited with code 0\nOutput:\n' }],
      }),
    );
    expect(commands.missing(() => false)).toEqual([
      {
        type: 'commandExecution',
        id: 'call_a',
        command: 'bash -lc true',
        status: 'completed',
        exitCode: 0,
        aggregatedOutput: '',
      },
    ]);
  });
});
