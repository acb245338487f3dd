import { describe, expect, it } from 'vitest';
import {
  failureCode,
  isSignedOut,
  rateLimitReading,
  resultFailure,
} from '../../../../server/runtime/agents/claude/claudeHostSignals';
import { usageReadingOf } from '../../../../server/runtime/agents/claude/claudeUsage';
import {
  approvalAskOf,
  grantsOf,
  permissionAnswerOf,
  PLAN_MODE_MESSAGE,
  refusalMessage,
  refusedInPlanMode,
} from '../../../../server/runtime/agents/claude/claudePermissions';
import type { PermissionEvent } from '../../../../server/runtime/agents/claude/hostProtocol';

const BASH_SUGGESTIONS = [
  {
    type: 'addRules',
    rules: [{ toolName: 'Bash', ruleContent: 'npm test' }],
    behavior: 'allow',
    destination: 'localSettings',
  },
  { type: 'addDirectories', directories: ['/srv/other-project'], destination: 'session' },
];

function bashRequest(): PermissionEvent {
  return {
    type: 'permission',
    requestId: '1',
    toolName: 'Bash',
    input: { command: 'npm test' },
    suggestions: BASH_SUGGESTIONS,
    title: null,
    reason: null,
    toolUseId: 'toolu_01',
  };
}

describe('ACC-7 rate_limit_event becomes a plan-limit reading of the Claude account', () => {
  it('keeps the window, the use in percent and the reset in milliseconds', () => {
    const event = rateLimitReading({
      type: 'rate_limit_event',
      uuid: 'u',
      session_id: 's',
      rate_limit_info: {
        status: 'allowed_warning',
        rateLimitType: 'five_hour',
        utilization: 0.815,
        resetsAt: 1_800_000_000,
      },
    });
    expect(event).toEqual({
      type: 'rateLimit',
      window: 'five_hour',
      utilization: 0.815,
      resetsAt: 1_800_000_000,
      status: 'allowed_warning',
    });
    expect(usageReadingOf(event!, '6f1c2d7e-1111-4222-8333-444455556666', 42)).toEqual({
      agent: 'claude',
      accountKey: '6f1c2d7e-1111-4222-8333-444455556666',
      window: 'five_hour',
      usedPercent: 81.5,
      resetsAt: 1_800_000_000_000,
      sampledAt: 42,
    });
  });

  it('a reading without a use is no reading, and other messages are none', () => {
    expect(
      usageReadingOf(
        rateLimitReading({ type: 'rate_limit_event', rate_limit_info: { status: 'rejected' } })!,
        'default',
      ),
    ).toBeNull();
    expect(rateLimitReading({ type: 'assistant', message: { content: [] } })).toBeNull();
  });
});

describe('ACC-3 what a failed Claude turn says', () => {
  it('an authentication error means signed out; other errors keep their name; a failed result keeps its words', () => {
    expect(failureCode({ type: 'assistant', error: 'authentication_failed' })).toBe('signed_out');
    expect(failureCode({ type: 'assistant', error: 'billing_error' })).toBe('billing_error');
    expect(failureCode({ type: 'assistant', message: {} })).toBeNull();
    expect(
      resultFailure({
        type: 'result',
        is_error: true,
        subtype: 'success',
        result: 'Not logged in · Please run /login',
      }),
    ).toEqual({ subtype: 'success', text: 'Not logged in · Please run /login' });
    expect(resultFailure({ type: 'result', is_error: false, subtype: 'success' })).toBeNull();
  });

  it('signed out only with neither a token nor an API key, and only for Anthropic itself', () => {
    expect(isSignedOut({ tokenSource: 'none', apiProvider: 'firstParty' })).toBe(true);
    expect(isSignedOut({ tokenSource: 'none', apiKeySource: 'ANTHROPIC_API_KEY' })).toBe(false);
    expect(isSignedOut({ tokenSource: 'claude.ai' })).toBe(false);
    expect(isSignedOut({ apiProvider: 'bedrock' })).toBe(false);
  });
});

describe('ACC-4 canUseTool requests and their answers', () => {
  it('a tool request shows the command, the input and the suggestions in words', () => {
    expect(approvalAskOf(bashRequest())).toMatchObject({
      // The tool call it is asked for: that row waits for the person (ACC-4).
      itemId: 'toolu_01',
      kind: 'tool',
      command: 'Bash: npm test',
      detail: JSON.stringify({ command: 'npm test' }, null, 2),
      suggestions: ['Allow Bash(npm test)', 'Allow access to /srv/other-project'],
    });
  });

  it('allow once passes the input; for this session adds the suggestions to the session only; deny says why', () => {
    expect(permissionAnswerOf(bashRequest(), { decision: 'accept', answers: null })).toEqual({
      behavior: 'allow',
      updatedInput: { command: 'npm test' },
    });
    const forSession = permissionAnswerOf(bashRequest(), { decision: 'acceptForSession', answers: null });
    expect(forSession).toMatchObject({ behavior: 'allow' });
    expect(forSession.behavior === 'allow' && forSession.updatedPermissions?.map((u) => u.destination)).toEqual([
      'session',
      'session',
    ]);
    expect(permissionAnswerOf(bashRequest(), { decision: 'decline', answers: null })).toEqual({
      behavior: 'deny',
      message: refusalMessage('Bash', 'The user declined this tool call.'),
    });
    expect(grantsOf(BASH_SUGGESTIONS)).toEqual({
      allowedTools: ['Bash(npm test)'],
      directories: ['/srv/other-project'],
    });
  });

  it('answers to AskUserQuestion go back in its input, keyed by question text', () => {
    const ask: PermissionEvent = {
      ...bashRequest(),
      toolName: 'AskUserQuestion',
      input: {
        questions: [
          {
            question: 'Which ones?',
            header: 'Pick',
            multiSelect: true,
            options: [
              { label: 'A', description: 'a' },
              { label: 'B', description: 'b' },
            ],
          },
        ],
      },
      suggestions: [],
    };
    expect(approvalAskOf(ask)).toMatchObject({
      kind: 'question',
      questions: [{ id: '0', question: 'Which ones?', multiSelect: true }],
    });
    expect(permissionAnswerOf(ask, { decision: 'accept', answers: { '0': ['A', 'B'] } })).toEqual({
      behavior: 'allow',
      updatedInput: { ...ask.input, answers: { 'Which ones?': 'A, B' } },
    });
    expect(permissionAnswerOf(ask, { decision: 'decline', answers: null })).toMatchObject({ behavior: 'deny' });
  });
});

describe('ACC-9 plan mode', () => {
  it('refuses every tool request but a question to the user, and only in plan mode', () => {
    const ask: PermissionEvent = {
      ...bashRequest(),
      toolName: 'AskUserQuestion',
      input: { questions: [] },
      suggestions: [],
    };
    expect(refusedInPlanMode(bashRequest(), 'plan')).toEqual({
      behavior: 'deny',
      message: refusalMessage('Bash', PLAN_MODE_MESSAGE),
    });
    expect(refusedInPlanMode(ask, 'plan')).toBeNull();
    expect(refusedInPlanMode(bashRequest(), 'default')).toBeNull();
  });
});
