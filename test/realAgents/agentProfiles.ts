/**
 * How each real agent is launched and aimed at the rig's model server. Everything an agent reads
 * is written into the run's temporary HOME (or passed as environment variables), so the user's
 * own configuration is never read or touched; background networking is switched off where the
 * agent has a switch for it. Versions, launch commands and the permission-relevant settings follow
 * `reference/agents-in-the-wild.md`.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';

export interface RunPaths {
  /** `http://127.0.0.1:<port>` of the model server. */
  readonly origin: string;
  readonly home: string;
  readonly cwd: string;
  /** `…/node_modules` of the agents' install. */
  readonly modules: string;
}

export interface Launch {
  readonly command: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  /** Run first, with the same environment (e.g. Cline's `auth`); a failure fails the run. */
  readonly setup: readonly { readonly command: string; readonly args: readonly string[] }[];
}

export interface AgentProfile {
  readonly id: string;
  readonly label: string;
  /** npm package and version the rig was written against. */
  readonly pkg: string;
  /** Which API it uses against the model server ("none" for the SDK example). */
  readonly api: string;
  /** False for the SDK example agent, which plays its own script: model-dependent checks do not apply. */
  readonly usesModel: boolean;
  readonly prepare: (p: RunPaths) => Launch;
}

export const apiKey = 'rig-key';
export const modelId = 'rig-model';

function write(file: string, content: string): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, content);
}

function json(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

function bin(p: RunPaths, name: string): string {
  return path.join(p.modules, '.bin', name);
}

const noSetup: Launch['setup'] = [];

export const agentProfiles: readonly AgentProfile[] = [
  {
    id: 'claude',
    label: 'Claude Agent ACP',
    pkg: '@zed-industries/claude-agent-acp@0.23.1',
    api: 'Anthropic Messages',
    usesModel: true,
    prepare: (p) => ({
      command: bin(p, 'claude-agent-acp'),
      args: [],
      env: {
        ANTHROPIC_BASE_URL: p.origin,
        ANTHROPIC_API_KEY: apiKey,
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
        DISABLE_AUTOUPDATER: '1',
        DISABLE_TELEMETRY: '1',
        DISABLE_ERROR_REPORTING: '1',
      },
      setup: noSetup,
    }),
  },
  {
    id: 'gemini',
    label: 'Gemini CLI',
    pkg: '@google/gemini-cli@0.61.0',
    api: 'Gemini streamGenerateContent',
    usesModel: true,
    prepare: (p) => {
      write(
        path.join(p.home, '.gemini', 'settings.json'),
        json({
          security: { auth: { selectedType: 'gemini-api-key' } },
          general: { disableAutoUpdate: true, disableUpdateNag: true },
          privacy: { usageStatisticsEnabled: false },
          telemetry: { enabled: false },
        }),
      );
      return { command: bin(p, 'gemini'), args: ['--acp'], env: { GEMINI_API_KEY: apiKey, GOOGLE_GEMINI_BASE_URL: p.origin }, setup: noSetup };
    },
  },
  {
    id: 'codex',
    label: 'Codex ACP',
    pkg: '@zed-industries/codex-acp@0.16.0',
    api: 'OpenAI Responses',
    usesModel: true,
    prepare: (p) => {
      const codexHome = path.join(p.home, '.codex');
      write(
        path.join(codexHome, 'config.toml'),
        [
          // A model Codex knows (its bundled catalog), so it offers its own apply_patch tool;
          // for an unknown model it offers none and edits only through exec_command.
          'model = "gpt-5.3-codex"',
          'model_provider = "rig"',
          'approval_policy = "untrusted"',
          'sandbox_mode = "danger-full-access"',
          'check_for_update_on_startup = false',
          '',
          '[model_providers.rig]',
          'name = "rig"',
          `base_url = "${p.origin}/v1"`,
          'env_key = "RIG_API_KEY"',
          'wire_api = "responses"',
          '',
        ].join('\n'),
      );
      return { command: bin(p, 'codex-acp'), args: [], env: { CODEX_HOME: codexHome, RIG_API_KEY: apiKey }, setup: noSetup };
    },
  },
  {
    id: 'qwen',
    label: 'Qwen Code',
    pkg: '@qwen-code/qwen-code@0.24.4',
    api: 'OpenAI Chat Completions',
    usesModel: true,
    prepare: (p) => {
      write(
        path.join(p.home, '.qwen', 'settings.json'),
        json({
          security: { auth: { selectedType: 'openai' } },
          model: { name: modelId },
          // Qwen's default `auto` never asks (agents-in-the-wild.md); `default` asks for edits and commands.
          tools: { approvalMode: 'default' },
          general: { disableAutoUpdate: true, disableUpdateNag: true },
          privacy: { usageStatisticsEnabled: false },
          telemetry: { enabled: false },
        }),
      );
      return {
        command: bin(p, 'qwen'),
        args: ['--acp'],
        env: { OPENAI_API_KEY: apiKey, OPENAI_BASE_URL: `${p.origin}/v1`, OPENAI_MODEL: modelId },
        setup: noSetup,
      };
    },
  },
  {
    id: 'opencode',
    label: 'opencode',
    pkg: 'opencode-ai@1.18.33',
    api: 'OpenAI Chat Completions',
    usesModel: true,
    prepare: (p) => {
      write(
        path.join(p.home, '.config', 'opencode', 'opencode.json'),
        json({
          $schema: 'https://opencode.ai/config.json',
          provider: {
            rig: {
              npm: '@ai-sdk/openai-compatible',
              name: 'Rig',
              options: { baseURL: `${p.origin}/v1`, apiKey },
              models: { [modelId]: { name: 'Rig model' } },
            },
          },
          model: `rig/${modelId}`,
          small_model: `rig/${modelId}`,
          // opencode allows everything unless told to ask (agents-in-the-wild.md).
          permission: { edit: 'ask', bash: 'ask' },
          autoupdate: false,
          share: 'disabled',
        }),
      );
      return {
        command: bin(p, 'opencode'),
        args: ['acp'],
        env: {
          OPENCODE_DISABLE_AUTOUPDATE: '1',
          OPENCODE_DISABLE_MODELS_FETCH: '1',
          OPENCODE_DISABLE_LSP_DOWNLOAD: '1',
          OPENCODE_DISABLE_DEFAULT_PLUGINS: '1',
          OPENCODE_DISABLE_SHARE: '1',
        },
        setup: noSetup,
      };
    },
  },
  {
    id: 'pi',
    label: 'pi-acp',
    pkg: 'pi-acp@0.0.34 + @earendil-works/pi-coding-agent@1.6.0',
    api: 'OpenAI Chat Completions',
    usesModel: true,
    prepare: (p) => {
      const agentDir = path.join(p.home, '.pi', 'agent');
      write(
        path.join(agentDir, 'models.json'),
        json({
          providers: {
            rig: {
              name: 'Rig',
              baseUrl: `${p.origin}/v1`,
              api: 'openai-completions',
              apiKey,
              models: [{ id: modelId, name: 'Rig model', contextWindow: 128000, maxTokens: 4096 }],
            },
          },
        }),
      );
      write(path.join(agentDir, 'settings.json'), json({ defaultProvider: 'rig', defaultModel: modelId }));
      // pi-acp runs `pi --mode rpc` from PATH (the rig puts the agents' .bin first).
      return { command: bin(p, 'pi-acp'), args: [], env: { PI_OFFLINE: '1', PI_SKIP_VERSION_CHECK: '1', PI_TELEMETRY: '0' }, setup: noSetup };
    },
  },
  {
    id: 'cline',
    label: 'Cline',
    pkg: 'cline@3.0.65',
    api: 'OpenAI Chat Completions',
    usesModel: true,
    prepare: (p) => ({
      command: bin(p, 'cline'),
      args: ['--acp'],
      // `cline auth` stores the provider and its base URL; in ACP mode Cline refuses `session/new`
      // ("Call authenticate before starting a session") unless CLINE_API_KEY is set or one of its
      // own sign-ins (cline, cline-pass, openai-codex) is stored, and takes the provider from CLINE_PROVIDER.
      env: { CLINE_PROVIDER: 'openai-compatible', CLINE_API_KEY: apiKey, CLINE_MODEL: modelId },
      setup: [{ command: bin(p, 'cline'), args: ['auth', '--provider', 'openai', '--apikey', apiKey, '--modelid', modelId, '--baseurl', `${p.origin}/v1`] }],
    }),
  },
  {
    id: 'sdk-example',
    label: 'SDK example agent',
    pkg: '@agentclientprotocol/sdk@1.9.0',
    api: 'none (scripted inside the agent)',
    usesModel: false,
    prepare: (p) => ({ command: 'node', args: [path.join(p.modules, '@agentclientprotocol', 'sdk', 'dist', 'examples', 'agent.js')], env: {}, setup: noSetup }),
  },
];
