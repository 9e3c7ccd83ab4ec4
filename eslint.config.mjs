// Lint: typed rules for every TypeScript program, plus the layer rules of ARCHITECTURE.md.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const vscodeBan = {
  paths: [{ name: 'vscode', message: 'The core (src/agentPort, src/wire, src/acp, src/transports, src/host, src/process, src/session, src/protocol, src/changes, src/permissions, src/registry, src/mcp), the application layer (src/app) and the runner (src/cli) must not import vscode.' }],
};

export default tseslint.config(
  { ignores: ['dist/**', 'out/**', 'node_modules/**', 'test/harness/**/node_modules/**', '.cache/**', '.package/**', '**/*.js', '**/*.mjs', 'media/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  ...tseslint.configs.stylisticTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-definitions': 'off',
      '@typescript-eslint/prefer-nullish-coalescing': 'off',
      '@typescript-eslint/class-literal-property-style': 'off',
      eqeqeq: ['error', 'smart'],
      curly: ['error', 'all'],
      'no-console': 'error',
    },
  },
  {
    files: ['src/cli/**', 'src/util/**', 'src/changes/**', 'src/registry/**'],
    rules: { 'no-restricted-imports': ['error', vscodeBan] },
  },
  {
    // The agent port: what the session layer needs from any agent. The bottom of the house.
    files: ['src/agentPort/**'],
    rules: {
      'no-restricted-imports': ['error', {
        ...vscodeBan,
        patterns: [
          { group: ['node:*', '**/acp/*', '**/app/*', '**/session/*', '**/views/*', '**/webview/*', '**/cli/*', '**/registry/*', '**/transports/*', '**/mcp/*', '**/permissions/*', '**/changes/*', '**/process/*', '**/wire/*', '**/host/*', '**/protocol/*'], message: 'src/agentPort is the bottom of the house: it may import only src/util (and SDK types).' },
          { group: ['@agentclientprotocol/sdk*'], allowTypeImports: true, message: 'src/agentPort may import SDK types only.' },
        ],
      }],
    },
  },
  {
    // The wire below every protocol: an agent's process and stdio, line framing, the traffic log.
    files: ['src/wire/**'],
    rules: {
      'no-restricted-imports': ['error', {
        ...vscodeBan,
        patterns: [{ group: ['**/acp/*', '**/app/*', '**/session/*', '**/views/*', '**/webview/*', '**/cli/*', '**/registry/*', '**/transports/*', '**/mcp/*', '**/permissions/*', '**/changes/*', '**/host/*', '**/protocol/*'], message: 'src/wire may import only src/agentPort, src/process and src/util.' }],
      }],
    },
  },
  {
    // ACP, one protocol behind the port: knows no other protocol, nor the host above it.
    files: ['src/acp/**'],
    rules: {
      'no-restricted-imports': ['error', {
        ...vscodeBan,
        patterns: [{ group: ['**/transports/*', '**/host/*', '**/app/*', '**/session/*', '**/views/*', '**/webview/*', '**/cli/*', '**/registry/*', '**/mcp/*', '**/permissions/*', '**/changes/*', '**/protocol/*'], message: 'src/acp may import only src/agentPort, src/wire, src/process and src/util.' }],
      }],
    },
  },
  {
    // The host above the protocols: starts an agent by its definition and hands back a connection.
    files: ['src/host/**'],
    rules: {
      'no-restricted-imports': ['error', {
        ...vscodeBan,
        patterns: [{ group: ['**/app/*', '**/session/*', '**/views/*', '**/webview/*', '**/cli/*', '**/registry/*', '**/mcp/*', '**/permissions/*', '**/changes/*', '**/protocol/*'], message: 'src/host may import only the protocols (src/acp, src/transports), src/agentPort, src/wire, src/process and src/util.' }],
      }],
    },
  },
  {
    // The process launcher: the one place that starts processes; below everything that runs them.
    files: ['src/process/**'],
    rules: {
      'no-restricted-imports': ['error', {
        ...vscodeBan,
        patterns: [{ group: ['**/acp/*', '**/app/*', '**/session/*', '**/views/*', '**/webview/*', '**/cli/*', '**/registry/*', '**/transports/*', '**/mcp/*', '**/permissions/*', '**/changes/*', '**/agentPort/*', '**/wire/*', '**/host/*'], message: 'src/process is the bottom of the core: it may import only src/util and Node.' }],
      }],
    },
  },
  {
    // The application layer: the orchestration of a chat for both the extension and the runner.
    files: ['src/app/**'],
    rules: {
      'no-restricted-imports': ['error', {
        ...vscodeBan,
        patterns: [{ group: ['**/views/*', '**/webview/*', '**/cli/*'], message: 'src/app is below the VS Code shell and the runner: no views, webview or CLI imports.' }],
      }],
    },
  },
  {
    // MCP server configuration: read by the extension and the runner alike, so no VS Code.
    files: ['src/mcp/**'],
    rules: {
      'no-restricted-imports': ['error', {
        ...vscodeBan,
        patterns: [{ group: ['**/views/*', '**/webview/*', '**/cli/*', '**/session/*', '**/app/*', '**/acp/*', '**/transports/*'], message: 'src/mcp is core: no views, webview, CLI, app, session or protocol imports.' }],
      }],
    },
  },
  {
    // The TUI Gateway and API Server sit beside src/acp behind the agent port, above nothing but the wire.
    files: ['src/transports/**'],
    rules: {
      'no-restricted-imports': ['error', {
        ...vscodeBan,
        patterns: [{ group: ['**/acp/*', '**/host/*', '**/session/*', '**/app/*', '**/views/*', '**/webview/*', '**/cli/*', '**/registry/*', '**/mcp/*', '**/permissions/*', '**/changes/*', '**/protocol/*'], message: 'src/transports may import only src/agentPort, src/wire, src/process and src/util.' }],
      }],
    },
  },
  {
    // Worktrees and checkpoints (issue 40): git through the launcher, the permission layer's path checks; shared by the chat and the runner.
    files: ['src/worktree/**'],
    rules: {
      'no-restricted-imports': ['error', {
        ...vscodeBan,
        patterns: [{ group: ['**/acp/*', '**/app/*', '**/session/*', '**/views/*', '**/webview/*', '**/cli/*', '**/registry/*', '**/transports/*', '**/mcp/*', '**/changes/*', '**/host/*', '**/wire/*', '**/agentPort/*', '**/protocol/*'], message: 'src/worktree may import only src/permissions, src/process and src/util.' }],
      }],
    },
  },
  {
    // The permission policy: pure apart from an injected file system; shared by the extension and the runner.
    files: ['src/permissions/**'],
    rules: {
      'no-restricted-imports': ['error', {
        ...vscodeBan,
        patterns: [
          { group: ['**/acp/*', '**/app/*', '**/session/*', '**/views/*', '**/webview/*', '**/cli/*'], message: 'src/permissions may import only src/protocol and src/util.' },
          { group: ['@agentclientprotocol/sdk*'], allowTypeImports: true, message: 'src/permissions may import SDK types only.' },
        ],
      }],
    },
  },
  {
    files: ['src/session/**'],
    rules: {
      'no-restricted-imports': ['error', {
        ...vscodeBan,
        patterns: [
          { group: ['node:*'], message: 'src/session is pure: no Node built-ins.' },
          { group: ['**/acp/*', '**/transports/*', '**/host/*', '**/wire/*', '**/process/*', '**/app/*', '**/views/*', '**/webview/*', '**/cli/*'], message: 'src/session may import only src/agentPort, src/protocol and src/util: it talks to agents only through the port.' },
          { group: ['@agentclientprotocol/sdk*'], allowTypeImports: true, message: 'src/session may import SDK types only.' },
        ],
      }],
    },
  },
  {
    files: ['src/protocol/**'],
    rules: {
      'no-restricted-imports': ['error', {
        ...vscodeBan,
        patterns: [{ group: ['**/acp/*', '**/app/*', '**/session/*', '**/views/*', '**/webview/*', '**/agentPort/*', '**/host/*', '**/transports/*', 'node:*'], message: 'src/protocol holds types and constants only.' }],
      }],
    },
  },
  {
    files: ['src/webview/**'],
    rules: {
      'no-restricted-imports': ['error', {
        paths: [{ name: 'vscode', message: 'The webview runs in a browser.' }],
        patterns: [{ group: ['node:*', '**/acp/*', '**/app/*', '**/session/*', '**/views/*', '**/cli/*', '**/agentPort/*', '**/host/*', '**/transports/*', '**/wire/*'], message: 'The webview imports only src/protocol and its own files.' }],
      }],
    },
  },
  {
    files: ['test/**', 'scripts/**', 'bench/**', 'src/cli/**'],
    rules: { 'no-console': 'off' },
  },
);
