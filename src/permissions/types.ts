import type * as acp from '@agentclientprotocol/sdk';
import type { PathSemantics } from '../util/paths';

export type RuleEffect = 'allow' | 'ask' | 'reject';
export type RuleScope = 'session' | 'workspace' | 'always';

/**
 * A client-side permission rule, the same for every agent (`hermes.permissions.rules`, the
 * runner's `--permissions` file, and the answers remembered from "always" on a card). All given
 * conditions must hold. What each condition matches is documented in README.md ("Permission
 * rules") and enforced by `policy.ts`.
 */
export interface PermissionRule {
  /** Tool kinds the rule covers, compared with the kind judged from the request's content. */
  readonly kind?: readonly acp.ToolKind[];
  /** Glob (picomatch, `dot: true`) over a target's path relative to its workspace folder. */
  readonly path?: string;
  /** A command pattern: words matched one to one with a simple command's argv; a last word `*` takes any further words. */
  readonly command?: string;
  /** Remembered from a card: the exact argv of one simple command (or its first words, with {@link argvPrefix}). */
  readonly argv?: readonly string[];
  readonly argvPrefix?: boolean;
  readonly effect: RuleEffect;
  readonly scope?: RuleScope;
  /** Shown on the card and in the traffic log as "rule: …". */
  readonly description?: string;
}

export type { PathSemantics };

/** What the policy needs from the file system: injected, so tests can simulate any volume. */
export interface PermissionFs {
  /** The real path (every symlink resolved); throws an error with `code` ENOENT/ENOTDIR when it does not exist. */
  realpath(p: string): string;
  /** Whether something (even a dangling symlink) exists at `p` without following a final link. */
  lexists(p: string): boolean;
  /** How many names a regular file has (1 for anything else); more means another name may be outside. */
  linkCount?(p: string): number;
}

/** Where the policy runs: the session's folder, the workspace folders, the user's home. */
export interface PolicyContext {
  readonly cwd: string;
  /** Workspace folders; a target outside all of them is never allowed by a rule. Defaults to `[cwd]`. */
  readonly roots?: readonly string[];
  readonly home?: string;
  readonly semantics: PathSemantics;
  readonly fs: PermissionFs;
  /** Extra sensitive names or paths (`hermes.permissions.sensitivePaths`). */
  readonly sensitive?: readonly string[];
}

export type TargetAccess = 'read' | 'write';

/** One path the request can touch, after canonicalisation. */
export interface PathTarget {
  readonly type: 'path';
  readonly access: TargetAccess;
  /** As the agent wrote it. */
  readonly raw: string;
  /** Where in the request it was found (`rawInput.path`, `diff`, `location`, `patch header`, `redirect`, …). */
  readonly source: string;
  /** Real absolute path (symlinks of the longest existing prefix resolved). */
  readonly canonical: string;
  /** Relative to the workspace folder that holds it (`/`-separated); undefined when outside every folder. */
  readonly relative: string | undefined;
  /** The sensitive pattern it matched, if any. */
  readonly sensitive: string | undefined;
}

/** One simple command (a pipeline stage, or a part of `a && b`). */
export interface SimpleCommandTarget {
  readonly type: 'command';
  readonly argv: readonly string[];
  /** Why no rule may allow it (substitution, pipe into a shell, `eval`, …); empty when a rule may. */
  readonly blockers: readonly string[];
  /** An argument naming a sensitive file. */
  readonly sensitive: string | undefined;
}

export type CheckedTarget = PathTarget | SimpleCommandTarget;

/** Everything the policy worked out about a request; shown on the card and in the logs. */
export interface RequestAnalysis {
  readonly declaredKind: acp.ToolKind | undefined;
  /** The kind judged from the content: a command ⇒ execute, write targets ⇒ edit. */
  readonly kind: acp.ToolKind | undefined;
  readonly targets: readonly CheckedTarget[];
  /** Why some target could not be read (the request is then asked, never allowed by a rule). */
  readonly problems: readonly string[];
}

/** What the policy decided, and why. */
export type PolicyDecision =
  | { readonly effect: 'ask'; readonly reason: string; readonly analysis: RequestAnalysis }
  | { readonly effect: 'allow' | 'reject'; readonly optionId: string; readonly rule: string; readonly analysis: RequestAnalysis };
