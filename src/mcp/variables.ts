/**
 * VS Code's predefined variables as `mcp.json` uses them: `${workspaceFolder}`,
 * `${workspaceFolderBasename}`, `${userHome}`, `${pathSeparator}` (and its short form `${/}`),
 * `${env:NAME}` (empty when unset, as in VS Code) and `${input:id}` (values resolved beforehand).
 * Anything else is an error rather than a literal `${…}` handed to a server.
 */
export interface VariableContext {
  /** The workspace folder the configuration belongs to; undefined when no folder is open. */
  readonly workspaceFolder: string | undefined;
  readonly userHome: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** `path.sep` of the platform (`\\` on Windows). */
  readonly pathSeparator: string;
  /** `path.basename` of the platform. */
  readonly basename: (p: string) => string;
}

export class VariableError extends Error {
  override readonly name = 'VariableError';
}

const reference = /\$\{([^}]*)\}/g;

/** The ids of the `${input:id}` references in `text`, in order of appearance. */
export function inputsReferenced(text: string): string[] {
  const ids: string[] = [];
  for (const m of text.matchAll(reference)) {
    const body = m[1] ?? '';
    if (body.startsWith('input:')) {
      ids.push(body.slice('input:'.length));
    }
  }
  return ids;
}

/** `text` with every variable replaced; throws {@link VariableError} for unknown ones and unresolved inputs. */
export function expandVariables(text: string, ctx: VariableContext, inputs: ReadonlyMap<string, string>): string {
  return text.replace(reference, (_whole, body: string) => {
    if (body.startsWith('env:')) {
      return ctx.env[body.slice('env:'.length)] ?? '';
    }
    if (body.startsWith('input:')) {
      const id = body.slice('input:'.length);
      const value = inputs.get(id);
      if (value === undefined) {
        throw new VariableError(`\${input:${id}} has no value`);
      }
      return value;
    }
    switch (body) {
      case 'workspaceFolder':
      case 'workspaceRoot':
        return requireFolder(ctx, body);
      case 'workspaceFolderBasename':
        return ctx.basename(requireFolder(ctx, body));
      case 'userHome':
        return ctx.userHome;
      case 'pathSeparator':
      case '/':
        return ctx.pathSeparator;
      default:
        throw new VariableError(`\${${body}} is not a variable this client knows (workspaceFolder, workspaceFolderBasename, userHome, pathSeparator, env:NAME, input:ID)`);
    }
  });
}

function requireFolder(ctx: VariableContext, name: string): string {
  if (ctx.workspaceFolder === undefined) {
    throw new VariableError(`\${${name}} needs an open workspace folder`);
  }
  return ctx.workspaceFolder;
}
