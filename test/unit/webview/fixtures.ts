import type { EntryView, SessionHeaderView, SessionView } from '../../../src/protocol/sessionView';
import type { EntryOp, HostMessage } from '../../../src/protocol/webviewProtocol';

/** Builders for view-model data: state only what a test is about. */
export function header(fields: Partial<SessionHeaderView> = {}): SessionHeaderView {
  return {
    hostTime: Date.now(),
    agentName: 'Hermes',
    phase: 'idle',
    plan: [],
    configOptions: [],
    commands: [],
    pendingPermissions: 0,
    readOnly: false,
    acceptsImages: false,
    ...fields,
  };
}

export function user(id: string, text: string, fields: Partial<Extract<EntryView, { kind: 'user' }>> = {}): EntryView {
  return { kind: 'user', id, blocks: [{ type: 'text', text }], origin: 'local', excluded: false, ...fields };
}

export function assistant(id: string, text: string): EntryView {
  return { kind: 'assistant', id, parts: [{ kind: 'text', text }] };
}

export function tool(id: string, fields: Partial<Extract<EntryView, { kind: 'tool' }>> = {}): Extract<EntryView, { kind: 'tool' }> {
  return {
    kind: 'tool',
    id,
    toolCallId: `call-${id}`,
    title: `Tool ${id}`,
    toolKind: 'read',
    status: 'completed',
    locations: [],
    content: [],
    startedAt: 1_000,
    endedAt: 2_500,
    ...fields,
  };
}

export function turnEnd(id: string, fields: Partial<Extract<EntryView, { kind: 'turnEnd' }>> = {}): EntryView {
  return { kind: 'turnEnd', id, turnId: 1, outcome: 'end_turn', durationMs: 4_200, ...fields };
}

/** One entry of every kind, with every content type. */
export function everyKind(now = Date.now()): EntryView[] {
  return [
    {
      kind: 'user',
      id: 'u1',
      blocks: [
        { type: 'text', text: 'Fix the **failing** test in `src/a.ts`' },
        { type: 'resource_link', uri: 'file:///work/src/a.ts', name: 'a.ts' },
        { type: 'image', mimeType: 'image/png', data: 'iVBORw0KGgo=' },
      ],
      origin: 'local',
      excluded: false,
    },
    {
      kind: 'assistant',
      id: 'a1',
      parts: [
        { kind: 'thought', text: 'Looking at the test first.', startedAt: now - 9_000, endedAt: now - 5_000 },
        { kind: 'text', text: 'The test fails because of an off-by-one:\n\n```ts\nconst last = items[items.length];\n```\n\nSee [a.ts](src/a.ts#L12).' },
      ],
    },
    tool('t1', {
      title: 'Read src/a.ts',
      toolKind: 'read',
      locations: [{ path: '/work/src/a.ts', line: 12, label: 'src/a.ts:12' }],
      content: [{ type: 'text', text: 'export const x = 1;', fullLength: 40_000, markdown: false }],
    }),
    tool('t2', {
      title: 'Edit src/a.ts',
      toolKind: 'edit',
      status: 'pending',
      content: [{ type: 'diff', path: '/work/src/a.ts', label: 'src/a.ts', isNew: false, added: 3, removed: 1, multiFile: false }],
      permission: {
        requestId: 'r1',
        status: 'pending',
        options: [
          { optionId: 'allow-once', name: 'Allow once', kind: 'allow_once' },
          { optionId: 'allow-always', name: 'Allow always', kind: 'allow_always' },
          { optionId: 'reject-once', name: 'Reject', kind: 'reject_once' },
        ],
        requestedAt: now - 12_000,
        expiresAt: now + 48_000,
      },
    }),
    tool('t3', {
      title: 'npm test',
      toolKind: 'execute',
      status: 'failed',
      content: [{ type: 'terminal', terminalId: 'term1', output: '\u001b[32m✓ passes\u001b[0m\n\u001b[31m✗ fails\u001b[0m\n', fullLength: 90_000, exitCode: 1, running: false }],
      rawInput: '{\n  "command": "npm test -- --grep a"\n}',
    }),
    {
      kind: 'plan',
      id: 'p1',
      entries: [
        { content: 'Reproduce', priority: 'high', status: 'completed' },
        { content: 'Fix the index', priority: 'medium', status: 'in_progress' },
        { content: 'Run the tests', priority: 'low', status: 'pending' },
      ],
    },
    { kind: 'notice', id: 'n1', level: 'error', title: 'Hermes exited (code 1)', detail: 'Its last lines of output are below.', log: 'Traceback:\n  boom', actions: ['showTraffic', 'restartAgent'] },
    turnEnd('e1', { usage: { inputTokens: 12_300, outputTokens: 456, totalTokens: 12_756 } }),
  ];
}

export function snapshot(seq: number, entries: readonly EntryView[], h: Partial<SessionHeaderView> = {}): HostMessage {
  const view: SessionView = { header: header(h), entries };
  return { type: 'session/snapshot', seq, view };
}

export function patch(seq: number, ops: readonly EntryOp[], h?: Partial<SessionHeaderView>): HostMessage {
  return { type: 'session/patch', seq, ops, ...(h !== undefined ? { header: header(h) } : {}) };
}
