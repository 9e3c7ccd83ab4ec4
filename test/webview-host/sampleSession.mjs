// A session view with every entry kind and content type, for screenshots and manual checks.
import { deflateSync } from 'node:zlib';

/** A small gradient PNG (base64), so the thumbnail in the screenshot is visible. */
function gradientPng(width = 48, height = 32) {
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (buf) => {
    let c = 0xffffffff;
    for (const b of buf) c = crcTable[(c ^ b) & 0xff] ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type, data) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const sum = Buffer.alloc(4);
    sum.writeUInt32BE(crc(body));
    return Buffer.concat([len, body, sum]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 2, 0, 0, 0], 8);
  const rows = [];
  for (let y = 0; y < height; y++) {
    const row = [0];
    for (let x = 0; x < width; x++) row.push(40 + (x * 180) / width, 90 + (y * 120) / height, 200);
    rows.push(Buffer.from(row.map(Math.round)));
  }
  const png = Buffer.concat([Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]), chunk('IHDR', ihdr), chunk('IDAT', deflateSync(Buffer.concat(rows))), chunk('IEND', Buffer.alloc(0))]);
  return png.toString('base64');
}
export function sampleHeader(now = Date.now(), fields = {}) {
  return {
    hostTime: now,
    sessionId: 'sess-1',
    agentName: 'Hermes',
    title: 'Fix the failing date test',
    phase: 'running',
    turnStartedAt: now - 30_000,
    usage: { used: 12_300, size: 131_072, cost: { amount: 0.0421, currency: 'USD' } },
    plan: [
      { content: 'Reproduce the failure', priority: 'high', status: 'completed' },
      { content: 'Fix the off-by-one in formatDate', priority: 'high', status: 'in_progress' },
      { content: 'Run the whole suite', priority: 'medium', status: 'pending' },
    ],
    modes: { current: 'code', options: [{ id: 'ask', name: 'Ask' }, { id: 'code', name: 'Code' }, { id: 'architect', name: 'Architect' }] },
    models: { current: 'sonnet', options: [{ id: 'sonnet', name: 'Claude Sonnet' }, { id: 'gpt', name: 'GPT-5' }] },
    configOptions: [
      { type: 'select', id: 'effort', name: 'Reasoning effort', select: { current: 'medium', options: [{ id: 'low', name: 'Low' }, { id: 'medium', name: 'Medium' }, { id: 'high', name: 'High' }] } },
      { type: 'boolean', id: 'web', name: 'Web search', value: true },
    ],
    commands: [
      { name: 'plan', description: 'Write a plan before changing code' },
      { name: 'compact', description: 'Summarize the conversation to save context', hint: '[instructions]' },
      { name: 'clear', description: 'Start over with an empty context' },
      { name: 'review', description: 'Review the current diff' },
    ],
    pendingPermissions: 1,
    readOnly: false,
    acceptsImages: true,
    ...fields,
  };
}

export function sampleEntries(now = Date.now()) {
  return [
    {
      kind: 'user',
      id: 'u0',
      blocks: [{ type: 'text', text: 'Earlier prompt restored from the session (excluded from context).' }],
      origin: 'replay',
      excluded: true,
    },
    {
      kind: 'user',
      id: 'u1',
      blocks: [
        { type: 'text', text: 'The **date test** fails on the last day of the month. Can you fix `formatDate`?' },
        { type: 'resource_link', uri: 'file:///work/src/date.ts', name: 'date.ts' },
        { type: 'resource_link', uri: 'file:///work/test/date.test.ts', name: 'date.test.ts' },
        { type: 'image', mimeType: 'image/png', data: gradientPng() },
      ],
      origin: 'local',
      excluded: false,
    },
    {
      kind: 'assistant',
      id: 'a1',
      parts: [
        { kind: 'thought', text: 'The test uses `new Date(2024, 0, 31)` and adds a month; JavaScript rolls over to March.', startedAt: now - 28_000, endedAt: now - 22_000 },
        {
          kind: 'text',
          text: [
            '## What is wrong',
            '',
            'Adding a month to **January 31** rolls over to *March 2*, because `setMonth` keeps the day. See [date.ts](src/date.ts#L14) and the [MDN page](https://developer.mozilla.org/).',
            '',
            '```ts',
            'export function addMonths(d: Date, n: number): Date {',
            '  const r = new Date(d);',
            "  r.setMonth(r.getMonth() + n); // rolls over on the 31st",
            '  return r;',
            '}',
            '```',
            '',
            '| Input | Expected | Actual |',
            '|:--|:--|:--|',
            '| Jan 31 + 1 | Feb 29 | Mar 2 |',
            '',
            '- [x] Found the cause',
            '- [ ] Clamp the day to the month length',
            '',
            '> Raw HTML like <script>alert(1)</script> is shown as text.',
          ].join('\n'),
        },
      ],
    },
    {
      kind: 'tool',
      id: 't1',
      toolCallId: 'call-1',
      title: 'Read src/date.ts',
      toolKind: 'read',
      status: 'completed',
      locations: [{ path: '/work/src/date.ts', line: 14, label: 'src/date.ts:14' }],
      content: [{ type: 'text', text: 'export function addMonths(d: Date, n: number): Date { … }', fullLength: 48_000, markdown: false }],
      startedAt: now - 21_000,
      endedAt: now - 20_800,
    },
    {
      kind: 'tool',
      id: 't2',
      toolCallId: 'call-2',
      title: 'Search for "setMonth"',
      toolKind: 'search',
      status: 'in_progress',
      locations: [],
      content: [],
      startedAt: now - 20_000,
    },
    {
      kind: 'plan',
      id: 'p1',
      entries: [
        { content: 'Reproduce the failure', priority: 'high', status: 'completed' },
        { content: 'Fix the off-by-one in formatDate', priority: 'high', status: 'in_progress' },
        { content: 'Run the whole suite', priority: 'medium', status: 'pending' },
      ],
    },
    {
      kind: 'tool',
      id: 't3',
      toolCallId: 'call-3',
      title: 'Edit src/date.ts',
      toolKind: 'edit',
      status: 'pending',
      locations: [{ path: '/work/src/date.ts', line: 14, label: 'src/date.ts:14' }],
      content: [{ type: 'diff', path: '/work/src/date.ts', label: 'src/date.ts', isNew: false, added: 6, removed: 2, multiFile: false }],
      permission: {
        requestId: 'perm-1',
        status: 'pending',
        options: [
          { optionId: 'allow', name: 'Allow once', kind: 'allow_once' },
          { optionId: 'session', name: 'Allow for this session', kind: 'allow_always' },
          { optionId: 'deny', name: 'Deny', kind: 'reject_once' },
        ],
        requestedAt: now - 18_000,
        expiresAt: now + 42_000,
      },
      startedAt: now - 19_000,
    },
    {
      kind: 'tool',
      id: 't4',
      toolCallId: 'call-4',
      title: 'npm test',
      toolKind: 'execute',
      status: 'failed',
      locations: [],
      content: [
        {
          type: 'terminal',
          terminalId: 'term-1',
          output:
            '> hermes@0.1.0 test\n> mocha\n\n  date\n    \u001b[32m✔\u001b[0m formats ISO dates\n    \u001b[31m1) adds a month on the 31st\u001b[0m\n\n  \u001b[32m12 passing\u001b[0m \u001b[90m(48ms)\u001b[0m\n  \u001b[31m1 failing\u001b[0m\n',
          fullLength: 64_000,
          exitCode: 1,
          running: false,
        },
      ],
      rawInput: '{\n  "command": "npm test -- --grep date",\n  "cwd": "/work"\n}',
      rawOutput: '{\n  "exitCode": 1\n}',
      startedAt: now - 17_000,
      endedAt: now - 12_500,
    },
    {
      kind: 'tool',
      id: 't5',
      toolCallId: 'call-5',
      title: 'Write test/new\u202Egnp.ts',
      toolKind: 'edit',
      status: 'completed',
      locations: [],
      content: [{ type: 'diff', path: '/work/test/new.ts', label: 'test/new\u202Egnp.ts', isNew: true, added: 24, removed: 0, multiFile: false }],
      permission: {
        requestId: 'perm-0',
        status: 'selected',
        options: [
          { optionId: 'allow', name: 'Allow once', kind: 'allow_once' },
          { optionId: 'deny', name: 'Deny', kind: 'reject_once' },
        ],
        requestedAt: now - 16_000,
        answeredAt: now - 15_000,
        optionId: 'allow',
        answeredBy: 'rule: edit test/**',
      },
      startedAt: now - 16_000,
      endedAt: now - 14_000,
    },
    {
      kind: 'notice',
      id: 'n1',
      level: 'warning',
      title: 'Hermes restarted after an error',
      detail: 'Traceback (most recent call last):\n  File "hermes/agent.py", line 88, in run\nConnectionResetError: [Errno 104] Connection reset by peer',
      actions: ['showTraffic', 'restartAgent'],
    },
    {
      kind: 'turnEnd',
      id: 'e1',
      turnId: 1,
      outcome: 'cancelled',
      durationMs: 31_400,
      usage: { inputTokens: 11_200, outputTokens: 1_100, totalTokens: 12_300 },
    },
    {
      kind: 'assistant',
      id: 'a2',
      parts: [
        { kind: 'thought', text: 'Clamp the day: compute the last day of the target month.', startedAt: now - 3_000 },
      ],
    },
  ];
}

export function sampleSnapshot(seq = 1, now = Date.now(), headerFields = {}) {
  return { type: 'session/snapshot', seq, view: { header: sampleHeader(now, headerFields), entries: sampleEntries(now) } };
}
