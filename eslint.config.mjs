// Lint: typed rules for every TypeScript program, plus the layer rules of ARCHITECTURE.md.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const vscodeBan = {
  paths: [{ name: 'vscode', message: 'The core (src/acp, src/process, src/session, src/protocol, src/changes, src/permissions, src/registry, src/mcp, src/transports), the application layer (src/app) and the runner (src/cli) must not import vscode.' }],
};

export default tseslint.config(
  { ignores: ['dist/**', 'out/**', 'node_modules/**', 'test/harness/**/node_modules/**', '.cache/**', '**/*.js', '**/*.mjs', 'media/**'] },
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
    files: ['src/acp/**', 'src/session/**', 'src/protocol/**', 'src/cli/**', 'src/util/**', 'src/changes/**', 'src/registry/**'],
    rules: { 'no-restricted-imports': ['error', vscodeBan] },
  },
  {
    // The process launcher: the one place that starts processes; below everything that runs them.
    files: ['src/process/**'],
    rules: {
      'no-restricted-imports': ['error', {
        ...vscodeBan,
        patterns: [{ group: ['**/acp/*', '**/app/*', '**/session/*', '**/views/*', '**/webview/*', '**/cli/*', '**/registry/*', '**/transports/*', '**/mcp/*', '**/permissions/*', '**/changes/*'], message: 'src/process is the bottom of the core: it may import only src/util and Node.' }],
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
        patterns: [{ group: ['**/views/*', '**/webview/*', '**/cli/*', '**/session/*'], message: 'src/mcp is core: no views, webview, CLI or session imports.' }],
      }],
    },
  },
  {
    // Transports sit beside src/acp: below the session layer's port, above nothing but the wire.
    files: ['src/transports/**'],
    rules: {
      'no-restricted-imports': ['error', {
        ...vscodeBan,
        patterns: [{ group: ['**/app/*', '**/views/*', '**/webview/*', '**/cli/*'], message: 'src/transports is core: no views, webview or CLI imports.' }],
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
          { group: ['**/acp/*', '**/app/*', '**/views/*', '**/webview/*'], message: 'src/session may import only src/protocol and src/util.' },
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
        patterns: [{ group: ['**/acp/*', '**/app/*', '**/session/*', '**/views/*', '**/webview/*', 'node:*'], message: 'src/protocol holds types and constants only.' }],
      }],
    },
  },
  {
    files: ['src/webview/**'],
    rules: {
      'no-restricted-imports': ['error', {
        paths: [{ name: 'vscode', message: 'The webview runs in a browser.' }],
        patterns: [{ group: ['node:*', '**/acp/*', '**/app/*', '**/session/*', '**/views/*', '**/cli/*'], message: 'The webview imports only src/protocol and its own files.' }],
      }],
    },
  },
  {
    files: ['test/**', 'scripts/**', 'bench/**', 'src/cli/**'],
    rules: { 'no-console': 'off' },
  },
);
