import type * as acp from '@agentclientprotocol/sdk';

/**
 * Hermes approvals (TUI Gateway `approval` requests, API Server `approval.request` run events) as
 * ACP permission requests, so they get the same cards, rules, notifications and settling. The
 * choices are Hermes' own (`tools/approval.py`: once / session / always / deny) and go back verbatim.
 */
export interface HermesApproval {
  readonly sessionId: string;
  readonly requestId: string;
  readonly command: string;
  readonly description: string;
  readonly choices: readonly string[];
  /** The open tool call the approval belongs to, when known; else a card of its own is made. */
  readonly toolCallId?: string;
}

const choiceOptions: Readonly<Record<string, { name: string; kind: acp.PermissionOptionKind }>> = {
  once: { name: 'Allow once', kind: 'allow_once' },
  session: { name: 'Allow for this session', kind: 'allow_always' },
  always: { name: 'Always allow', kind: 'allow_always' },
  deny: { name: 'Deny', kind: 'reject_once' },
};

export function approvalPermission(a: HermesApproval): acp.RequestPermissionRequest {
  const choices = a.choices.filter((c) => c in choiceOptions);
  if (choices.length === 0) {
    choices.push('once');
  }
  if (!choices.includes('deny')) {
    choices.push('deny');
  }
  // The command travels with the request also when it joins an open call: the permission policy
  // judges the request alone, and an approval without its command has no target to check. It is
  // the call's own argument (`terminal {command}`); Hermes' reason shows as the card's content.
  const asked = a.command !== '' ? { rawInput: { command: a.command } } : {};
  const why: acp.ToolCallContent[] = a.description !== '' ? [{ type: 'content', content: { type: 'text', text: `Hermes asks before running this: ${a.description}` } }] : [];
  const toolCall: acp.ToolCallUpdate =
    a.toolCallId !== undefined
      ? { toolCallId: a.toolCallId, ...asked, ...(why.length > 0 ? { content: why } : {}) }
      : {
          toolCallId: `approval-${a.requestId}`,
          title: a.description !== '' ? a.description : a.command !== '' ? a.command : 'Approve a command',
          kind: 'execute',
          status: 'pending',
          rawInput: { command: a.command, description: a.description },
          ...(a.command !== '' ? { content: [{ type: 'content', content: { type: 'text', text: a.command } }] } : {}),
        };
  return {
    sessionId: a.sessionId,
    toolCall,
    options: choices.map((c) => ({ optionId: c, name: choiceOptions[c]?.name ?? c, kind: choiceOptions[c]?.kind ?? 'allow_once' })),
  };
}

/** Not choosing (dismissed, turn cancelled) denies — never an option the user did not pick. */
export function approvalChoice(res: acp.RequestPermissionResponse): string {
  return res.outcome.outcome === 'selected' ? res.outcome.optionId : 'deny';
}
