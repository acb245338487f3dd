/**
 * Codex's custom prompts (UX-10): Markdown files in `<CODEX_HOME>/prompts/`, offered as
 * `/prompts:<name>`. Codex's app server has no method that lists or expands them (only its own
 * terminal UI does), so the runtime reads the session's profile home and expands a message
 * `/prompts:<name> args` the way Codex's CLI does before the text becomes the turn's input.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { parse as splitShellWords } from 'shell-quote';
import type { AgentCommand } from '../../../../lib/protocol/agents';
import { boundedCommands } from '../agentCommands';
import { AgentRunError } from '../agentRunError';

export const CODEX_PROMPT_PREFIX = 'prompts:';
/** A prompt file larger than this is not offered: a prompt is a page of instructions, not data. */
const MAX_PROMPT_BYTES = 256 * 1024;
/** Codex reads a directory of prompts; a home with more than this is cut, in name order. */
const MAX_PROMPTS = 500;
const PROMPT_FILE = /^(.+)\.md$/;

export interface CodexPrompt {
  name: string;
  description: string | null;
  argumentHint: string | null;
  /** The file's text after its front matter. */
  body: string;
}

/**
 * Codex's front matter: a first line `---`, `key: value` lines, a closing `---`; quotes around a
 * value go, `#` lines are comments. With no closing line the whole file is the prompt.
 */
export function parsePromptFile(name: string, text: string): CodexPrompt {
  const lines = text.split('\n');
  const prompt: CodexPrompt = { name, description: null, argumentHint: null, body: text };
  if (lines[0]?.trim() !== '---') return prompt;
  const close = lines.findIndex((line, index) => index > 0 && line.trim() === '---');
  if (close < 0) return prompt;
  for (const line of lines.slice(1, close)) {
    const match = /^\s*([A-Za-z_-]+)\s*:\s*(.*?)\s*$/.exec(line);
    if (!match || line.trim().startsWith('#')) continue;
    const value = match[2]!.replace(/^(["'])(.*)\1$/, '$2');
    if (match[1] === 'description') prompt.description = value;
    else if (match[1] === 'argument-hint' || match[1] === 'argument_hint') prompt.argumentHint = value;
  }
  prompt.body = lines.slice(close + 1).join('\n');
  return prompt;
}

/** The prompts of a Codex home, by name; a file that cannot be read is left out. */
export async function readCodexPrompts(codexHome: string): Promise<CodexPrompt[]> {
  const folder = path.join(codexHome, 'prompts');
  let names: string[];
  try {
    names = (await fs.readdir(folder)).filter((name) => PROMPT_FILE.test(name)).sort();
  } catch {
    return [];
  }
  const prompts: CodexPrompt[] = [];
  for (const file of names.slice(0, MAX_PROMPTS)) {
    try {
      // stat follows a symlink: a link to a Markdown file is a prompt, as in Codex.
      const stat = await fs.stat(path.join(folder, file));
      if (!stat.isFile() || stat.size > MAX_PROMPT_BYTES) continue;
      prompts.push(parsePromptFile(PROMPT_FILE.exec(file)![1]!, await fs.readFile(path.join(folder, file), 'utf8')));
    } catch {
      continue;
    }
  }
  return prompts;
}

export function promptCommands(prompts: readonly CodexPrompt[]): AgentCommand[] {
  return boundedCommands(
    prompts.map((p) => ({
      name: `${CODEX_PROMPT_PREFIX}${p.name}`,
      description: p.description ?? 'Saved prompt',
      argumentHint: p.argumentHint,
    })),
  );
}

/** Shell-like words, quotes honoured, nothing of the shell's own meaning (variables, operators, globs) applied. */
function words(rest: string): string[] {
  return splitShellWords(rest, (key) => `$${key}`).map((entry) => {
    if (typeof entry === 'string') return entry;
    if ('comment' in entry) return `#${entry.comment}`;
    return entry.op === 'glob' ? entry.pattern : entry.op;
  });
}

/** `$NAME` placeholders (not `$$NAME`), in order of first use; `$ARGUMENTS` is positional. */
function namedPlaceholders(body: string): string[] {
  const names = new Set<string>();
  for (const match of body.matchAll(/(?<!\$)\$([A-Z][A-Z0-9_]*)/g)) if (match[1] !== 'ARGUMENTS') names.add(match[1]!);
  return [...names];
}

function promptArgumentError(command: string, message: string): AgentRunError {
  return new AgentRunError('codex_prompt_arguments', `Could not use ${command}: ${message}`);
}

/**
 * The text Codex's CLI would send for `text`: unchanged unless it starts `/prompts:<name>` with a
 * prompt of that name. A prompt with `$NAME` placeholders takes `NAME=value` words (each one
 * needed); else `$1`…`$9` take the words in order and `$ARGUMENTS` all of them; `$$` stays.
 */
export function expandCodexPrompt(text: string, prompts: readonly CodexPrompt[]): string {
  const match = /^\/(\S+)\s*([\s\S]*)$/.exec(text);
  if (!match || !match[1]!.startsWith(CODEX_PROMPT_PREFIX)) return text;
  const prompt = prompts.find((p) => p.name === match[1]!.slice(CODEX_PROMPT_PREFIX.length));
  if (!prompt) return text;
  const command = `/${match[1]}`;
  const rest = match[2]!;
  const required = namedPlaceholders(prompt.body);
  if (required.length > 0) {
    const inputs = new Map<string, string>();
    for (const word of words(rest)) {
      const equals = word.indexOf('=');
      if (equals < 0)
        throw promptArgumentError(
          command,
          `expected KEY=value but found '${word}'. Wrap values in double quotes if they contain spaces.`,
        );
      if (equals === 0) throw promptArgumentError(command, `expected a name before '=' in '${word}'.`);
      inputs.set(word.slice(0, equals), word.slice(equals + 1));
    }
    const missing = required.filter((name) => !inputs.has(name));
    if (missing.length > 0)
      throw promptArgumentError(
        command,
        `missing ${missing.join(', ')}. Give them as KEY=value (quote values with spaces).`,
      );
    return prompt.body.replace(/(?<!\$)\$([A-Z][A-Z0-9_]*)/g, (whole, name: string) => inputs.get(name) ?? whole);
  }
  const args = words(rest);
  return prompt.body.replace(/\$(\$|[1-9]|ARGUMENTS)/g, (whole, what: string) => {
    if (what === '$') return whole;
    if (what === 'ARGUMENTS') return args.join(' ');
    return args[Number(what) - 1] ?? '';
  });
}
