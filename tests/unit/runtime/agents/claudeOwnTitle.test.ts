import { describe, expect, it } from 'vitest';
import { claudeOwnTitle } from '../../../../server/runtime/agents/claude/claudeHostQueries';

describe("Claude's own title of a conversation (UX-8)", () => {
  it('UX-8 a /rename title first, then the summary Claude wrote; never the first prompt getSessionInfo falls back to', () => {
    expect(claudeOwnTitle({ summary: 'Release notes', customTitle: 'Ship 2.0', firstPrompt: 'Write the notes' })).toBe(
      'Ship 2.0',
    );
    expect(claudeOwnTitle({ summary: 'Release notes for 2.0', firstPrompt: 'Write the notes' })).toBe(
      'Release notes for 2.0',
    );
    expect(claudeOwnTitle({ summary: 'Write the notes', firstPrompt: 'Write the notes' })).toBeNull();
    expect(claudeOwnTitle({ summary: '  ', customTitle: ' ' })).toBeNull();
    expect(claudeOwnTitle(undefined)).toBeNull();
  });
});
