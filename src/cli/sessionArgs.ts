import type { SessionRequest } from './sessionChoice';

/** The `parseArgs` options of sessions across runs (merged into args.ts' table). */
export const sessionOptionSpecs = {
  continue: { type: 'boolean', short: 'c' },
  resume: { type: 'string' },
  name: { type: 'string' },
} as const;

export interface SessionFlags {
  readonly continue?: boolean;
  readonly resume?: string;
  readonly name?: string;
}

export interface SessionChoiceFlags {
  readonly request?: SessionRequest;
  readonly name?: string;
}

/** A session name: one line, printable, at most 100 characters. */
export function sessionNameProblem(name: string): string | undefined {
  if (name.trim() === '') {
    return 'is empty';
  }
  if (name.length > 100) {
    return 'is longer than 100 characters';
  }
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(name)) {
    return 'contains a control character (a line break, a tab, …)';
  }
  return undefined;
}

/** `--continue`, `--resume ID|NAME` (not both) and `--name NAME`; a message when they are wrong. */
export function parseSessionFlags(values: SessionFlags): SessionChoiceFlags | string {
  if (values.continue === true && values.resume !== undefined) {
    return '--continue resumes the latest session and --resume a given one: use either';
  }
  if (values.resume?.trim() === '') {
    return '--resume needs a session id or name';
  }
  const name = values.name;
  const problem = name !== undefined ? sessionNameProblem(name) : undefined;
  if (problem !== undefined) {
    return `--name ${problem}`;
  }
  const request: SessionRequest | undefined = values.continue === true ? { kind: 'continue' } : values.resume !== undefined ? { kind: 'resume', target: values.resume } : undefined;
  return { ...(request !== undefined ? { request } : {}), ...(name !== undefined ? { name } : {}) };
}
