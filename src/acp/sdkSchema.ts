/**
 * The SDK's own generated zod schemas for ACP v1 **stable** (schema v1.25.0 in SDK 2.4.0): the very
 * module its stable entrypoint validates incoming messages with (`dist/v1/stable/acp.js` imports
 * `../schema/zod.gen.js`; the `/unstable` entrypoint uses another copy).
 *
 * The package's `exports` map does not list it, so it is imported by path. esbuild resolves the
 * path to the same file the SDK imports, so the bundles hold one copy; the test build bundles this
 * one file (see `scripts/build.mjs`), because Node would refuse the deep import.
 */
export {
  zConfigOptionUpdate,
  zContentChunk,
  zLoadSessionResponse,
  zNewSessionResponse,
  zResumeSessionResponse,
  zSessionNotification,
  zSetSessionConfigOptionResponse,
  zToolCall,
  zToolCallUpdate,
  zPlan,
  zAvailableCommandsUpdate,
  zCurrentModeUpdate,
  zSessionInfoUpdate,
  zUsageUpdate,
  zNotice,
  zCompactionUpdate,
  zCompactionSummaryChunk,
  zMcpServer,
} from '../../node_modules/@agentclientprotocol/sdk/dist/v1/schema/zod.gen.js';
