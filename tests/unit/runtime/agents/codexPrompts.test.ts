import { describe, expect, it } from 'vitest';
import {
  expandCodexPrompt,
  parsePromptFile,
  promptCommands,
} from '../../../../server/runtime/agents/codex/codexPrompts';

describe('UX-10 Codex custom prompt files', () => {
  it('UX-10 front matter gives the description and hint; without a closing line the whole file is the prompt', () => {
    const parsed = parsePromptFile(
      'draft',
      "---\n# a comment\ndescription: 'Draft a PR'\nargument_hint: [TITLE=<t>]\n---\nBody $TITLE\n",
    );
    expect(parsed).toEqual({
      name: 'draft',
      description: 'Draft a PR',
      argumentHint: '[TITLE=<t>]',
      body: 'Body $TITLE\n',
    });
    expect(parsePromptFile('open', '---\ndescription: x\nno end').body).toBe('---\ndescription: x\nno end');
    expect(promptCommands([parsed, parsePromptFile('plain', 'Just text')])).toEqual([
      { name: 'prompts:draft', description: 'Draft a PR', argumentHint: '[TITLE=<t>]' },
      { name: 'prompts:plain', description: 'Saved prompt' },
    ]);
  });

  it('UX-10 a prompt whose name cannot be typed as one word is left out, a long description is cut to the protocol bound', () => {
    const commands = promptCommands([
      parsePromptFile('two words', 'x'),
      parsePromptFile('long', `---\ndescription: ${'d'.repeat(3000)}\n---\nx`),
    ]);
    expect(commands.map((c) => c.name)).toEqual(['prompts:long']);
    expect(commands[0]!.description).toHaveLength(2000);
    expect(commands[0]!.description.endsWith('…')).toBe(true);
  });

  it('UX-10 /prompts:<name> expands as Codex does; other text and unknown prompts stay as typed', () => {
    const prompts = [
      parsePromptFile('pos', 'A=$1 B=$2 C=$3 all=$ARGUMENTS cost=$$5'),
      parsePromptFile('named', 'Fix $FILE ($$HOME stays, $ARGUMENTS too)'),
    ];
    expect(expandCodexPrompt('/prompts:pos x "y z"', prompts)).toBe('A=x B=y z C= all=x y z cost=$$5');
    expect(expandCodexPrompt("/prompts:pos a|b '$HOME' *.ts", prompts)).toBe(
      'A=a B=| C=b all=a | b $HOME *.ts cost=$$5',
    );
    expect(expandCodexPrompt('/prompts:named FILE="src/a b.ts"', prompts)).toBe(
      'Fix src/a b.ts ($$HOME stays, $ARGUMENTS too)',
    );
    expect(expandCodexPrompt('/prompts:missing x', prompts)).toBe('/prompts:missing x');
    expect(expandCodexPrompt('/compact', prompts)).toBe('/compact');
    expect(expandCodexPrompt('please /prompts:pos', prompts)).toBe('please /prompts:pos');
  });

  it('UX-10 a named prompt refuses words that are not KEY=value and names the missing keys', () => {
    const prompts = [parsePromptFile('named', 'Fix $FILE in $AREA')];
    expect(() => expandCodexPrompt('/prompts:named src/a.ts', prompts)).toThrow(
      "Could not use /prompts:named: expected KEY=value but found 'src/a.ts'.",
    );
    expect(() => expandCodexPrompt('/prompts:named =x', prompts)).toThrow("expected a name before '=' in '=x'.");
    expect(() => expandCodexPrompt('/prompts:named FILE=a', prompts)).toThrow('missing AREA.');
  });
});
