import { describe, expect, it } from 'vitest';
import { usageReadings } from '../../../../server/runtime/agents/codex/codexAccounts';
import { codexApproval } from '../../../../server/runtime/agents/codex/codexApprovals';
import { turnOverrides } from '../../../../server/runtime/agents/codex/codexTurnSettings';
import { DEFAULT_CODEX_SETTINGS } from '../../../../lib/protocol/agents';

const ids = { threadId: 't1', turnId: 'u1', itemId: 'i1', startedAtMs: 1 };
const noChanges = () => undefined;

describe('Codex approval kinds as the app shows them (ACC-4)', () => {
  it('ACC-4 a command approval carries the command; the decision goes back as is', () => {
    const mapped = codexApproval(
      'item/commandExecution/requestApproval',
      { ...ids, kind: 'command', environmentId: null, command: 'rm -rf build', cwd: '/p', reason: 'cleanup' },
      noChanges,
    )!;
    expect(mapped.ask).toMatchObject({ kind: 'command', command: 'rm -rf build', reason: 'cleanup', detail: 'in /p' });
    expect(mapped.respond({ decision: 'acceptForSession', answers: null })).toEqual({ decision: 'acceptForSession' });
  });

  it('ACC-4 a file change shows the files and the diff Codex announced for that item', () => {
    const diff = '--- a/x\n+++ b/x\n@@\n-old\n+new\n';
    const mapped = codexApproval(
      'item/fileChange/requestApproval',
      { ...ids, reason: null, grantRoot: null },
      (t, i) => (t === 't1' && i === 'i1' ? { paths: ['x'], diff } : undefined),
    )!;
    expect(mapped.ask).toMatchObject({ kind: 'fileChange', command: 'x', detail: diff });
    expect(mapped.respond({ decision: 'decline', answers: null })).toEqual({ decision: 'decline' });
  });

  it('ACC-4 permissions: accept grants what was asked for the turn, acceptForSession for the session, decline nothing', () => {
    const permissions = { network: { enabled: true }, fileSystem: null };
    const mapped = codexApproval(
      'item/permissions/requestApproval',
      { ...ids, environmentId: null, cwd: '/p', reason: 'needs the network', permissions },
      noChanges,
    )!;
    expect(mapped.ask).toMatchObject({
      kind: 'permissions',
      command: 'More permissions: network',
      reason: 'needs the network',
    });
    expect(mapped.respond({ decision: 'accept', answers: null })).toEqual({
      permissions: { network: { enabled: true } },
      scope: 'turn',
    });
    expect(mapped.respond({ decision: 'acceptForSession', answers: null })).toEqual({
      permissions: { network: { enabled: true } },
      scope: 'session',
    });
    expect(mapped.respond({ decision: 'decline', answers: null })).toEqual({ permissions: {}, scope: 'turn' });
  });

  it('ACC-4 the permissions asked read in words: each path once, with its access', () => {
    const fileSystem = {
      read: null,
      write: ['/cache'],
      entries: [
        { path: { type: 'path', path: '/cache' }, access: 'write' },
        { path: { type: 'glob_pattern', pattern: '/logs/*.log' }, access: 'read' },
      ],
    };
    const detail = (permissions: unknown) =>
      codexApproval(
        'item/permissions/requestApproval',
        { ...ids, environmentId: null, cwd: '/p', reason: null, permissions },
        noChanges,
      )!.ask.detail;
    expect(detail({ network: { enabled: true }, fileSystem })).toBe('Network access\nWrite: /cache\nRead: /logs/*.log');
    expect(detail({ network: null, fileSystem: { read: ['/docs'], write: null } })).toBe('Read: /docs');
    // A shape this version does not know is shown as it came, not hidden.
    expect(
      detail({ network: null, fileSystem: { entries: [{ path: { type: 'future' }, access: 'write' }] } }),
    ).toContain('"future"');
  });

  it('ACC-4 request_user_input becomes a question form; its answers go back by question id', () => {
    const questions = [
      {
        id: 'color',
        header: 'Colour',
        question: 'Which colour?',
        isOther: true,
        isSecret: false,
        options: [{ label: 'Red', description: 'warm' }],
      },
      { id: 'token', header: '', question: 'Your token?', isOther: false, isSecret: true, options: null },
    ];
    const mapped = codexApproval(
      'item/tool/requestUserInput',
      { ...ids, questions, isBlocking: true, autoResolutionMs: null },
      noChanges,
    )!;
    expect(mapped.ask.kind).toBe('question');
    expect(mapped.ask.questions).toEqual([
      {
        id: 'color',
        header: 'Colour',
        question: 'Which colour?',
        options: [{ label: 'Red', description: 'warm' }],
        multiSelect: false,
        allowOther: true,
        secret: false,
      },
      {
        id: 'token',
        header: null,
        question: 'Your token?',
        options: [],
        multiSelect: false,
        allowOther: true,
        secret: true,
      },
    ]);
    expect(mapped.respond({ decision: 'accept', answers: { color: ['Red'], token: ['abc'] } })).toEqual({
      answers: { color: { answers: ['Red'] }, token: { answers: ['abc'] } },
    });
  });

  it('ACC-4 an MCP elicitation form becomes questions; accepted answers are typed as its schema says', () => {
    const requestedSchema = {
      type: 'object',
      properties: {
        name: { type: 'string', title: 'Name' },
        count: { type: 'integer' },
        ok: { type: 'boolean' },
        size: { type: 'string', enum: ['S', 'M'] },
      },
    };
    const mapped = codexApproval(
      'mcpServer/elicitation/request',
      {
        threadId: 't1',
        turnId: null,
        serverName: 'db',
        environmentId: null,
        mode: 'form',
        _meta: null,
        message: 'Fill this in',
        requestedSchema,
      },
      noChanges,
    )!;
    expect(mapped.ask).toMatchObject({
      kind: 'question',
      command: 'Fill this in',
      reason: 'Asked by the MCP server db',
    });
    expect(mapped.ask.questions?.map((q) => [q.id, q.options.map((o) => o.label), q.allowOther])).toEqual([
      ['name', [], true],
      ['count', [], true],
      ['ok', ['true', 'false'], false],
      ['size', ['S', 'M'], false],
    ]);
    expect(
      mapped.respond({ decision: 'accept', answers: { name: ['Ada'], count: ['3'], ok: ['true'], size: ['M'] } }),
    ).toEqual({
      action: 'accept',
      content: { name: 'Ada', count: 3, ok: true, size: 'M' },
      _meta: null,
    });
    expect(mapped.respond({ decision: 'decline', answers: null })).toEqual({
      action: 'decline',
      content: null,
      _meta: null,
    });
    // Only the fields the form's `required` lists need an answer.
    const withRequired = codexApproval(
      'mcpServer/elicitation/request',
      {
        threadId: 't1',
        turnId: null,
        serverName: 'db',
        environmentId: null,
        mode: 'form',
        _meta: null,
        message: 'Fill this in',
        requestedSchema: { ...requestedSchema, required: ['name'] },
      },
      noChanges,
    )!;
    expect(withRequired.ask.questions?.map((q) => [q.id, q.required])).toEqual([
      ['name', true],
      ['count', false],
      ['ok', false],
      ['size', false],
    ]);
  });

  it("ACC-4 Codex's question before an MCP tool runs is a tool approval; allowed for the session only when Codex offers it", () => {
    const meta = {
      codex_approval_kind: 'mcp_tool_call',
      persist: ['session', 'always'],
      tool_name: 'lookup',
      tool_description: 'Looks a word up.',
      tool_params: { word: 'abc' },
    };
    const params = {
      threadId: 't1',
      turnId: 'u1',
      serverName: 'tiny',
      environmentId: null,
      mode: 'form',
      _meta: meta,
      message: 'Allow the tiny MCP server to run tool "lookup"?',
      requestedSchema: { type: 'object', properties: {} },
    };
    const mapped = codexApproval('mcpServer/elicitation/request', params, noChanges)!;
    expect(mapped.ask).toEqual({
      kind: 'tool',
      command: 'lookup (MCP server tiny)',
      reason: 'Looks a word up.',
      detail: '{\n  "word": "abc"\n}',
    });
    expect(mapped.respond({ decision: 'accept', answers: null })).toEqual({
      action: 'accept',
      content: {},
      _meta: null,
    });
    expect(mapped.respond({ decision: 'acceptForSession', answers: null })).toEqual({
      action: 'accept',
      content: {},
      _meta: { persist: 'session' },
    });
    expect(mapped.respond({ decision: 'decline', answers: null })).toEqual({
      action: 'decline',
      content: null,
      _meta: null,
    });
    expect(mapped.respond({ decision: 'cancel', answers: null })).toEqual({
      action: 'cancel',
      content: null,
      _meta: null,
    });
    // Without a session grant on offer, "for this session" allows this call only.
    const once = codexApproval(
      'mcpServer/elicitation/request',
      { ...params, _meta: { ...meta, persist: undefined, tool_description: null } },
      noChanges,
    )!;
    expect(once.ask.reason).toBe('Allow the tiny MCP server to run tool "lookup"?');
    expect(once.respond({ decision: 'acceptForSession', answers: null })).toEqual({
      action: 'accept',
      content: {},
      _meta: null,
    });
  });

  it('ACC-4 a request that is none of these is not mapped', () => {
    expect(codexApproval('item/tool/call', { ...ids }, noChanges)).toBeNull();
    expect(codexApproval('item/commandExecution/requestApproval', { nonsense: true }, noChanges)).toBeNull();
  });
});

describe('Codex settings and plan limits', () => {
  it('ACC-5 the default turn runs sandboxed to the project with on-request approvals; full access only when chosen', () => {
    expect(turnOverrides(DEFAULT_CODEX_SETTINGS, '/p')).toEqual({
      approvalPolicy: 'on-request',
      sandboxPolicy: {
        type: 'workspaceWrite',
        writableRoots: ['/p'],
        networkAccess: false,
        excludeTmpdirEnvVar: false,
        excludeSlashTmp: false,
      },
    });
    expect(
      turnOverrides({ ...DEFAULT_CODEX_SETTINGS, sandbox: 'danger-full-access', model: 'm', effort: 'high' }, '/p'),
    ).toEqual({
      approvalPolicy: 'on-request',
      sandboxPolicy: { type: 'dangerFullAccess' },
      model: 'm',
      effort: 'high',
    });
    expect(turnOverrides({ ...DEFAULT_CODEX_SETTINGS, sandbox: 'read-only' }, '/p').sandboxPolicy).toEqual({
      type: 'readOnly',
      networkAccess: false,
    });
  });

  it('ACC-7 a rate-limit snapshot becomes one reading per window, reset times in milliseconds', () => {
    const snapshot = {
      limitId: 'codex',
      primary: { usedPercent: 12, windowDurationMins: 300, resetsAt: 1_800_000_000 },
      secondary: null,
    };
    expect(usageReadings('p1', snapshot, 5)).toEqual([
      {
        agent: 'codex',
        accountKey: 'p1',
        window: 'primary',
        usedPercent: 12,
        resetsAt: 1_800_000_000_000,
        sampledAt: 5,
      },
    ]);
    expect(
      usageReadings('p1', { limitId: 'other', primary: null, secondary: { usedPercent: 3, resetsAt: null } }, 5).map(
        (r) => r.window,
      ),
    ).toEqual(['other:secondary']);
  });
});
