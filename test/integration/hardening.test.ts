/**
 * Hardening suites inside a real VS Code (code-server's extension host), against the loaded
 * extension's ChatManager — what the unit suites (test/unit/hardening) cannot reach:
 *
 * - R1: the crash notice, ChatManager's automatic respawn with backoff (1 s, 4 s, …) and the
 *   restore into the same chat; a kill during the respawn's `session/load`.
 * - R3: closeChat, the webview's cancel and permission messages, agent exit, and `dispose()` of a
 *   ChatManager (what `deactivate()` runs; a second manager, so the loaded extension stays usable
 *   for the files after this one).
 * - R5: the real `WorkspaceFileSystem` (WorkspaceEdit writes, the 50 MB read limit) and the real
 *   TerminalManager, directly and asked by an agent over ACP.
 *
 * Agents run under agentTap.js where the wire matters (it records what the client wrote).
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { AgentDefinition, AgentHost } from '../../src/host/agentHost';
import { ClientRequestError } from '../../src/agentPort/agentErrors';
import type { TurnResult } from '../../src/session/sessionController';
import { ChatManager } from '../../src/views/chat/chatManager';
import type { ChatSession } from '../../src/app/chatSession';
import { Configuration } from '../../src/views/configuration';
import { TrafficChannel } from '../../src/views/trafficChannel';
import { WorkspaceTrustConsent } from '../../src/views/setup/workspaceTrust';
import { conversation, notices, userTexts } from '../unit/hardening/chatRig';
import { BIG_FILE_BYTES, bytesWrittenOutside, cwdAttempts, fileAttempts, hostileTree, outsideSnapshot } from '../unit/hardening/fsFixture';
import { agentTapPath, killTagged, newTag, scaled, sleep, summary, TAG_VAR, taggedProcesses, until, within } from '../unit/hardening/support';
import { readTap, tapChild, tapResponses } from '../unit/hardening/tapFile';
import { api, extension, lastAssistantText, scriptedAgentPath } from './support';

const tag = newTag('host');

function workspaceRoot(): string {
  const root = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  assert.ok(root !== undefined, 'the test host opens a workspace folder');
  return fs.realpathSync(root);
}

function agent(id: string, env: Record<string, string> = {}, tapFile?: string): AgentDefinition {
  return {
    id,
    name: `Hardening ${id}`,
    command: process.execPath,
    args: tapFile !== undefined ? [agentTapPath, tapFile, scriptedAgentPath()] : [scriptedAgentPath()],
    env: { ELECTRON_RUN_AS_NODE: '1', [TAG_VAR]: tag, ...env },
  };
}

function failureNotice(chat: ChatSession, from: number): ReturnType<typeof notices>[number] | undefined {
  return notices(chat)
    .slice(from)
    .find((n) => n.level === 'error' && n.actions?.includes('restartAgent') === true && /was killed by|exited with code/.test(n.title));
}

/** Resolves with the time the chat first showed a crash notice after `from` notices. */
function shownAt(chat: ChatSession): { readonly time: Promise<number>; dispose(): void } {
  const from = notices(chat).length;
  let sub: { dispose(): void } | undefined;
  const time = new Promise<number>((resolve) => {
    sub = chat.onDidChange(() => {
      if (failureNotice(chat, from) !== undefined) {
        resolve(Date.now());
      }
    });
  });
  return { time, dispose: () => sub?.dispose() };
}

class MemoryMemento implements vscode.Memento {
  private readonly values = new Map<string, unknown>();
  keys(): readonly string[] {
    return [...this.values.keys()];
  }
  get<T>(key: string, defaultValue?: T): T | undefined {
    return this.values.has(key) ? (this.values.get(key) as T) : defaultValue;
  }
  update(key: string, value: unknown): Thenable<void> {
    this.values.set(key, value);
    return Promise.resolve();
  }
}

suite('hardening (real extension host)', function () {
  this.timeout(scaled(240_000, 180_000));

  suiteTeardown(() => {
    killTagged(tag);
  });

  test('R1: killed with a permission pending, mid-stream and during the respawn\'s load: notice with stderr tail ≤ 1 s, automatic respawn restores the same chat', async () => {
    const a = await api();
    const stateFile = path.join(workspaceRoot(), `.hardening-r1-${process.pid}.json`);
    const def = agent('hardening-r1', { SCRIPTED_AGENT_STATE_FILE: stateFile });
    const chat = await a.manager.newSidebarSession(def);
    await until('session', () => chat.sessionId, 20_000);
    let n = 0;
    const submit = (text: string): Promise<TurnResult | undefined> => chat.submit([{ type: 'text', text: `#${++n} ${text}` }]);
    assert.equal((await within(submit('[tools] [big-output kb=64] [big-output kb=64] [big-output kb=64]'), 30_000, 'warm-up'))?.kind, 'ended');
    assert.equal((await within(submit('hello'), 10_000, 'echo'))?.kind, 'ended');
    const shown: number[] = [];
    const restoredBy: string[] = [];
    let lost = 0;
    let duplicated = 0;

    const checkRestored = (before: ReturnType<typeof conversation>, where: string): void => {
      const after = conversation(chat);
      const ids = new Map(after.map((i) => [i.id, i.sig]));
      const missing = before.filter((b) => ids.get(b.id) !== b.sig);
      const known = new Set(before.map((b) => b.id));
      const extra = after.filter((x) => !known.has(x.id));
      lost += missing.length;
      duplicated += extra.length + (userTexts(chat).length - new Set(userTexts(chat)).size);
      assert.deepEqual(missing.map((m) => m.sig.slice(0, 60)), [], `${where}: lost`);
      assert.deepEqual(extra.map((m) => m.sig.slice(0, 60)), [], `${where}: duplicated`);
    };

    // 1. SIGKILL while a permission is pending → automatic respawn after 1 s.
    {
      const pid = chat.host.pid;
      assert.ok(pid !== undefined);
      const watch = shownAt(chat);
      const asked = new Promise<void>((resolve) => chat.controller.onPermissionRequested(() => resolve()));
      const turn = submit('[command cmd=rm -rf build]');
      await within(asked, 10_000, 'permission');
      const killAt = Date.now();
      process.kill(pid, 'SIGKILL');
      const result = await within(turn, 1000, 'the prompt settles within 1 s');
      assert.equal(result?.kind, 'interrupted');
      shown.push((await within(watch.time, 1000, 'notice within 1 s')) - killAt);
      watch.dispose();
      assert.equal(chat.controller.pendingPermissions.length, 0);
      const notice = failureNotice(chat, 0);
      assert.ok(notice?.log !== undefined && notice.log !== '', 'the notice carries the stderr tail');
      const before = conversation(chat);
      await until('automatic respawn + restore', () => chat.host.pid !== undefined && chat.host.pid !== pid && chat.controller.state.phase === 'idle' && !chat.readOnly, 15_000);
      restoredBy.push('respawn after 1 s');
      checkRestored(before, 'kill 1');
    }

    // 2. exit 1 mid-stream → respawn after 4 s; 3. SIGKILL during that respawn's session/load.
    {
      const pid = chat.host.pid;
      assert.ok(pid !== undefined);
      let killAt = 0;
      const stderr = chat.host.log.onDidAppend((e) => {
        if (killAt === 0 && e.dir === 'stderr' && e.text.includes('about to crash')) {
          killAt = e.time;
        }
      });
      const watch = shownAt(chat);
      const turn = submit('[plain] [crash when=mid mode=exit code=1]');
      const result = await within(turn, 10_000, 'the crashing turn');
      assert.equal(result?.kind, 'interrupted');
      shown.push((await within(watch.time, 1000, 'notice within 1 s')) - killAt);
      watch.dispose();
      stderr.dispose();
      const before = conversation(chat);
      // Arm the kill for the respawn's replay.
      let loadKillAt = 0;
      const replay = chat.host.log.onDidAppend((e) => {
        const p = chat.host.pid;
        if (loadKillAt === 0 && e.dir === 'in' && e.method === 'session/update' && p !== undefined && p !== pid) {
          loadKillAt = Date.now();
          process.kill(p, 'SIGKILL');
        }
      });
      const watch3 = shownAt(chat);
      shown.push((await within(watch3.time, 10_000, 'the respawn (4 s) starts its load and is killed')) - loadKillAt);
      watch3.dispose();
      replay.dispose();
      await until('the load failed', () => chat.readOnly, 5000);
      // The third automatic respawn would wait 15 s: take the notice's "Restart Agent" instead.
      await within(a.manager.runNoticeAction('restartAgent', chat), 20_000, 'Restart Agent');
      await until('restored', () => chat.controller.state.phase === 'idle' && !chat.readOnly, 10_000);
      restoredBy.push('respawn after 4 s (its load killed)', 'Restart Agent from the notice');
      checkRestored(before, 'kills 2 and 3');
    }
    const after = await within(submit('after the kills'), 10_000, 'a turn after the restore');
    assert.equal(after?.kind, 'ended');
    assert.match(lastAssistantText(chat), /You said: #\d+ after the kills/);
    summary(
      `R1 (extension host): 3 kills (2 SIGKILL, 1 exit 1) incl. 1 with permission pending and 1 during the respawn's session/load; ` +
        `failure shown with stderr tail in ≤ ${Math.max(...shown)} ms (max); 0 pending promises; restored by ${restoredBy.join(', ')}; ${lost} lost, ${duplicated} duplicated`,
    );
    await chat.host.stop();
    fs.rmSync(stateFile, { force: true });
  });

  suite('R3: permission hygiene through ChatManager', () => {
    const counts = scaled(5, 2) === 5 ? [1, 2, 3, 4, 5] : [1, 3];
    const figures: string[] = [];
    let round = 0;

    /** k chats on one agent, each with a [command] pending; some answered first through the webview message. */
    async function pendingChats(manager: ChatManager, def: AgentDefinition, k: number): Promise<{ chats: ChatSession[]; turns: Promise<TurnResult | undefined>[]; chosen: Map<string, string> }> {
      const chats: ChatSession[] = [];
      for (let j = 0; j < k; j++) {
        const c = manager.createChat(def);
        assert.equal(await within(c.ensureStarted(), 20_000, 'session'), true);
        chats.push(c);
      }
      const turns = chats.map((c, j) => c.submit([{ type: 'text', text: `[command cmd=rm -rf r3-${round}-${j}]` }]));
      await until(`${k} pending`, () => chats.every((c) => c.controller.pendingPermissions.length === 1), 15_000);
      const chosen = new Map<string, string>();
      const first = chats.slice(0, Math.floor(k / 2));
      for (const c of first) {
        const p = c.controller.pendingPermissions[0];
        assert.ok(p !== undefined);
        manager.handleWebviewMessage({ type: 'permission/choose', requestId: p.requestId, optionId: 'no-such-option' }, c);
        assert.equal(c.controller.pendingPermissions.length, 1, 'an option that was not offered is ignored');
        const option = p.request.options[(round + chats.indexOf(c)) % p.request.options.length];
        assert.ok(option !== undefined);
        manager.handleWebviewMessage({ type: 'permission/choose', requestId: p.requestId, optionId: option.optionId }, c);
        chosen.set(p.request.toolCall.toolCallId, option.optionId);
      }
      return { chats, turns, chosen };
    }

    /** Every request the agent (under tap pid) sent got an answer on its stdin, among the offered options. */
    function wireCheck(host: AgentHost, tapFile: string, tapPid: number, fromSeq: number, chosen: ReadonlyMap<string, string>): { requests: number; answered: number; invalid: string[] } {
      const requests = host.log
        .snapshot()
        .filter((e) => e.seq > fromSeq && e.dir === 'in' && e.kind === 'request' && e.method === 'session/request_permission')
        .map((e) => ({ id: e.id, params: (JSON.parse(e.text) as { params: { toolCall: { toolCallId: string }; options: { optionId: string }[] } }).params }));
      const wire = tapResponses(readTap(tapFile), tapPid);
      const invalid: string[] = [];
      let answered = 0;
      for (const r of requests) {
        const resp = r.id === undefined ? undefined : wire.get(r.id);
        if (resp === undefined) {
          continue;
        }
        answered++;
        const o = resp.outcome;
        const offered = r.params.options.map((x) => x.optionId);
        if (o === undefined || (o.outcome !== 'cancelled' && !(o.optionId !== undefined && offered.includes(o.optionId)))) {
          invalid.push(JSON.stringify(resp));
        }
        const c = chosen.get(r.params.toolCall.toolCallId);
        if (c !== undefined && o?.optionId !== c) {
          invalid.push(`chose ${c}, answered ${JSON.stringify(o)}`);
        }
      }
      return { requests: requests.length, answered, invalid };
    }

    for (const event of ['session close', 'cancel', 'agent exit', 'deactivate'] as const) {
      test(`${event}: 0 of ${counts.join('+')} pending requests left unanswered`, async () => {
        const a = await api();
        const tapFile = path.join(workspaceRoot(), `.hardening-r3-${event.replace(' ', '-')}-${process.pid}.jsonl`);
        let requests = 0;
        let unanswered = 0;
        let wireRequests = 0;
        let wireAnswered = 0;
        const invalid: string[] = [];
        for (const k of counts) {
          round++;
          // deactivate: a ChatManager of its own, disposed the way deactivate() disposes the extension's.
          const manager =
            event === 'deactivate'
              ? new ChatManager({
                  extensionUri: extension().extensionUri,
                  workspaceState: new MemoryMemento(),
                  extensionVersion: '0.0.0',
                  config: new Configuration(extension().extensionPath),
                  traffic: new TrafficChannel(() => 'off'),
                  consent: new WorkspaceTrustConsent(),
                })
              : a.manager;
          const def = agent(`hardening-r3-${event.replace(' ', '-')}-${round}`, { SCRIPTED_AGENT_STATE_FILE: `${tapFile}.state.json` }, tapFile);
          const host = manager.hostFor(def);
          await within(host.start(), 20_000, 'agent start');
          const tapPid = host.pid;
          assert.ok(tapPid !== undefined);
          const fromSeq = host.log.snapshot().at(-1)?.seq ?? 0;
          const { chats, turns, chosen } = await pendingChats(manager, def, k);
          const controllers = chats.map((c) => c.controller);
          const settled = turns.map(() => false);
          turns.forEach((t, i) => {
            const done = (): void => {
              settled[i] = true;
            };
            t.then(done, done);
          });
          switch (event) {
            case 'session close':
              await within(Promise.all(chats.map((c) => manager.closeChat(c))), 10_000, 'closeChat');
              break;
            case 'cancel':
              for (const c of chats) {
                manager.handleWebviewMessage({ type: 'turn/cancel' }, c);
              }
              break;
            case 'agent exit': {
              const child = tapChild(readTap(tapFile), tapPid);
              assert.ok(child !== undefined);
              process.kill(child, 'SIGKILL');
              // ChatManager respawns the agent after 1 s and restores the chats: let it, then clean up.
              await until('respawned', () => host.state.kind === 'ready' && host.pid !== tapPid && chats.every((c) => c.controller.state.phase === 'idle'), 15_000);
              break;
            }
            case 'deactivate':
              await within(manager.dispose(), 10_000, 'ChatManager.dispose (deactivate)');
              break;
          }
          await until('turns settle', () => settled.every(Boolean), 5000).catch(() => undefined);
          requests += k;
          unanswered += controllers.reduce((n, c) => n + c.pendingPermissions.length, 0) + settled.filter((s) => !s).length;
          if (event !== 'agent exit') {
            await sleep(100);
            const w = wireCheck(host, tapFile, tapPid, fromSeq, chosen);
            wireRequests += w.requests;
            wireAnswered += w.answered;
            invalid.push(...w.invalid);
          }
          if (event !== 'deactivate') {
            for (const c of chats.filter((x) => a.manager.allChats.includes(x))) {
              await a.manager.closeChat(c);
            }
            await host.stop();
          }
        }
        const wire = event === 'agent exit' ? 'wire: n/a (the agent is gone)' : `${wireAnswered}/${wireRequests} answers reached the agent`;
        const line = `R3 ${event} (extension host): ${requests} requests pending in ${counts.length} rounds (${counts.join(', ')} at once); ${unanswered} left unanswered in the chats; ${wire}; ${invalid.length} answers outside the offered optionIds`;
        figures.push(line);
        summary(line);
        assert.equal(unanswered, 0);
        assert.deepEqual(invalid, []);
        if (event !== 'agent exit') {
          assert.equal(wireAnswered, wireRequests, `${event}: ${wireRequests - wireAnswered} answers never reached the agent (ChatManager.dispose settles them, then AgentHost.stop ends stdin in the same tick)`);
        }
        fs.rmSync(tapFile, { force: true });
        fs.rmSync(`${tapFile}.state.json`, { force: true });
      });
    }
  });

  suite('R5: the file-system boundary through the extension', () => {
    test('fs/* through WorkspaceFileSystem, over ACP, the 200 MB file, and terminal cwds: refused with a clear error, 0 bytes written outside', async () => {
      const a = await api();
      const t = hostileTree('hermes-r5-host-', workspaceRoot());
      assert.equal(fs.statSync(t.bigFile).size, BIG_FILE_BYTES);
      const before = outsideSnapshot(t);
      const stamp = `${process.pid}`;
      const allowed: string[] = [];
      const vague: string[] = [];
      let refused = 0;
      let attempts = 0;
      try {
        for (const at of fileAttempts(t, stamp)) {
          for (const intent of ['read', 'write'] as const) {
            attempts++;
            const op = intent === 'read' ? a.manager.fs.readTextFile({ sessionId: 's', path: at.path }) : a.manager.fs.writeTextFile({ sessionId: 's', path: at.path, content: `pwned by R5 (${at.what})\n` });
            try {
              await within(op, 10_000, `${intent} ${at.what}`);
              allowed.push(`${intent} ${at.what}`);
            } catch (e) {
              if (!ClientRequestError.is(e)) {
                vague.push(`${intent} ${at.what}: ${String(e)}`);
                continue;
              }
              refused++;
              if (!/outside the workspace|must be absolute|not a regular file|hard links|symbolic link|empty or invalid|does not exist/.test(e.message)) {
                vague.push(`${intent} ${at.what}: "${e.message}"`);
              }
            }
          }
        }
        // The dangling folder link (see R5d in the unit suite): what the real port does with it.
        const dangling = await a.manager.fs
          .writeTextFile({ sessionId: 's', path: path.join(t.ws, 'link-dangling-dir', `new-${stamp}.txt`), content: 'pwned\n' })
          .then(
            () => 'written',
            (e: unknown) => (ClientRequestError.is(e) ? `refused: ${e.message}` : `failed: ${e instanceof Error ? e.message : String(e)}`),
          );

        // 200 MB: refused by size before anything is read.
        const started = Date.now();
        const big = await a.manager.fs.readTextFile({ sessionId: 's', path: t.bigFile, line: 1, limit: 1 }).then(
          () => 'read',
          (e: unknown) => (ClientRequestError.is(e) ? e.message : String(e)),
        );
        const bigMs = Date.now() - started;
        assert.match(big, /200\.0 MB; the client reads files up to 50\.0 MB/);

        // Over ACP: an agent asks for the same paths.
        const chat = await a.manager.newSidebarSession(agent('hardening-r5'));
        await until('session', () => chat.sessionId, 20_000);
        const overAcp: [string, RegExp][] = [
          [`[write path=${path.join(t.outside, 'victim.txt')} text=pwned over ACP]`, /fs\/write_text_file failed: .*outside the workspace/],
          [`[write path=${path.join(t.ws, 'link-file')} text=pwned over ACP]`, /fs\/write_text_file failed: .*outside the workspace/],
          [`[write path=${path.join(t.ws, 'link-dir', `acp-${stamp}.txt`)} text=pwned over ACP]`, /fs\/write_text_file failed: .*outside the workspace/],
          [`[write path=${path.join(t.ws, 'hard')} text=pwned over ACP]`, /fs\/write_text_file failed: .*hard links/],
          [`[write path=${path.join(t.ws, 'fifo')} text=pwned over ACP]`, /fs\/write_text_file failed: .*not a regular file/],
          [`[read path=/dev/zero]`, /Reading \/dev\/zero failed: .*outside the workspace/],
          [`[read path=${t.bigFile}]`, /failed: .*200\.0 MB; the client reads files up to 50\.0 MB/],
        ];
        let acpRefused = 0;
        const acpMisses: string[] = [];
        for (const [marker, expected] of overAcp) {
          await within(chat.submit([{ type: 'text', text: marker }]), 20_000, marker);
          if (expected.test(lastAssistantText(chat))) {
            acpRefused++;
          } else {
            acpMisses.push(`${marker}: ${lastAssistantText(chat).slice(0, 200)}`);
          }
        }

        // Terminal cwds on the extension's TerminalManager.
        let cwdRefused = 0;
        const cwds = cwdAttempts(t);
        for (const c of cwds) {
          try {
            const { terminalId } = await a.manager.terminals.createTerminal({ sessionId: 's', command: 'sh', args: ['-c', `echo pwned > hermes-r5-ran-${stamp}`], cwd: c.path }, new AbortController().signal);
            await a.manager.terminals.releaseTerminal({ sessionId: 's', terminalId }, new AbortController().signal);
          } catch (e) {
            if (ClientRequestError.is(e)) {
              cwdRefused++;
            }
          }
        }

        const written = bytesWrittenOutside(before, outsideSnapshot(t));
        const etc = fs.existsSync(`/etc/hermes-r5-${stamp}`);
        summary(
          `R5 (extension host): WorkspaceFileSystem refused ${refused}/${attempts} hostile read/write attempts with a clear error; over ACP ${acpRefused}/${overAcp.length} [write]/[read]s refused with the client's error; ` +
            `200 MB file refused by size in ${bigMs} ms ("${big.slice(0, 60)}…"); terminal cwd ${cwdRefused}/${cwds.length} refused; ${written.bytes} bytes written outside; ` +
            `write under a dangling folder link: ${dangling.slice(0, 140)}`,
        );
        assert.deepEqual(vague, []);
        assert.deepEqual(allowed, []);
        assert.deepEqual(acpMisses, []);
        assert.equal(cwdRefused, cwds.length);
        assert.equal(written.bytes, 0, written.changed.join(', '));
        assert.deepEqual(written.changed, []);
        assert.equal(etc, false);
        assert.match(dangling, /^refused/, 'a write under a folder symlink that dangles to outside the workspace is refused by the boundary');
      } finally {
        fs.rmSync(t.ws, { recursive: true, force: true });
        fs.rmSync(t.base, { recursive: true, force: true });
        fs.rmSync(t.sibling, { recursive: true, force: true });
      }
    });
  });

  suite('cleanup', () => {
    test('no agent process of these suites is left', async () => {
      const a = await api();
      for (const h of a.manager.allHosts.filter((x) => x.definition.id.startsWith('hardening-'))) {
        await h.stop();
      }
      await until('no tagged process', () => taggedProcesses(tag).length === 0, 5000);
    });
  });
});
