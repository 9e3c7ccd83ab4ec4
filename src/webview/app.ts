import { createActions, type Actions } from './actions';
import { Announcer } from './announcer';
import { Clock } from './clock';
import { el, setDomWindow } from './dom';
import { createHostBridge } from './hostBridge';
import { defaultScheduler, type MarkdownScheduler } from './markdown';
import { setPageFocused } from './markdown/viewLimits';
import { Composer } from './render/composer';
import { isTurnRunning, type RenderEnv } from './render/env';
import { SessionControls, TopBar } from './render/header';
import { Transcript } from './render/transcript';
import { cardsIfLoaded } from './lazy/cards';
import { chunkError, LazyHeaderCard, withCards } from './lazy/lazyCard';
import { loadStrings, t } from './strings';
import { createTicker } from './ticker';
import type { FindInChat } from './render/findInChat';
import { copiesWholeTranscript } from './render/transcriptCopy';
import { UiState } from './uiState';
import { ViewStore } from './viewStore';

export interface AppOptions {
  /** Frame scheduling (requestAnimationFrame by default); tests drive it by hand. */
  readonly requestFrame?: (callback: () => void) => void;
  /** Wall clock (Date.now by default), for clock-skew correction and resync retries. */
  readonly now?: () => number;
  /** Timers and the monotonic clock for Markdown pacing and countdowns. */
  readonly scheduler?: MarkdownScheduler;
  readonly clientId?: string;
}

/** The mounted app; tests use it to flush frames and look inside. */
export interface App {
  readonly store: ViewStore;
  readonly ui: UiState;
  readonly actions: Actions;
  readonly composer: Composer;
  readonly transcript: Transcript;
}

/**
 * Mounts the chat view into `#app` (or the body), wires host messages to the view store, and
 * says `webview/ready`; the host answers with a snapshot.
 */
export function startApp(win: Window & typeof globalThis, options: AppOptions = {}): App {
  setDomWindow(win);
  const document = win.document;
  loadStrings(document);
  const bridge = createHostBridge(win);
  const actions = createActions(bridge);
  const ui = new UiState(bridge.getState(), (state) => bridge.setState(state));
  const clock = new Clock(options.now);
  const ticker = createTicker(options.scheduler ?? defaultScheduler());
  const announcer = new Announcer();
  const holder: { store?: ViewStore; transcript?: Transcript } = {};
  const env: RenderEnv = {
    actions,
    ui,
    clock,
    scheduler: ticker.paced,
    ticker,
    header: () => holder.store?.header,
    announce: (message) => announcer.announce(message),
    userTurnsFrom: (id) => {
      const slots = holder.store?.slots ?? [];
      const from = slots.findIndex((s) => s.id === id);
      return from < 0 ? 1 : slots.slice(from).filter((s) => s.kind === 'user').length;
    },
    permissionShown: () => holder.transcript?.permissionShown(),
  };

  const topBar = new TopBar(env);
  const controls = new SessionControls(env);
  const planDock = new LazyHeaderCard(t('plan'), (h) => h.plan.length > 0, (cards) => new cards.PlanDock());
  const composer = new Composer(env, controls.element);
  const transcript = new Transcript(env, {
    composerBusy: () => composer.isBusy,
    loadEntries: (from, to) =>
      actions.getEntries(from, to).then(
        (result) => void holder.store?.load(result),
        () => undefined, // asked again when the rows next need it
      ),
  });
  const signIn = new LazyHeaderCard(t('sign-in card'), (h) => h.signIn !== undefined, (cards) => new cards.SignInCard(env));
  const mcp = new LazyHeaderCard(t('MCP summary'), (h) => h.mcp !== undefined, (cards) => new cards.McpSummary());
  topBar.element.append(mcp.element);

  const store = new ViewStore({
    resync: (lastSeq) => actions.resync(lastSeq),
    requestFrame: options.requestFrame ?? ((cb) => win.requestAnimationFrame(() => cb())),
    now: options.now ?? (() => Date.now()),
    headerReceived: (header, receivedAt) => clock.observe(header.hostTime, receivedAt),
    render: (frame) => {
      const header = holder.store?.header;
      if (frame.header && header !== undefined) {
        topBar.update(header);
        controls.update(header);
        planDock.update(header);
        signIn.update(header);
        mcp.update(header);
        composer.updateHeader(header);
        // Spinners in the transcript (plan items in progress) only turn while the agent works.
        const active = header.phase === 'running' || header.phase === 'cancelling' || header.phase === 'starting';
        document.getElementById('app')?.classList.toggle('agent-idle', !active);
      }
      transcript.render(frame, holder.store?.slots ?? []);
    },
  });
  holder.store = store;

  holder.transcript = transcript;
  const findSlot = el('div', { class: 'find-slot' });
  transcript.element.prepend(findSlot);
  let find: FindInChat | undefined;
  const openFind = (): void =>
    withCards(
      (cards) => {
        find ??= new cards.FindInChat(document, transcript, (query) => actions.findInTranscript(query), findSlot);
        find.open();
      },
      (error) => findSlot.replaceChildren(chunkError(t('find bar'), error)),
    );
  document.addEventListener('copy', (e) => {
    // The transcript holds only the entries near the view: a copy of all of it is the host's.
    if (copiesWholeTranscript(document, transcript)) {
      e.preventDefault();
      actions.copyTranscript();
      announcer.announce(t('The whole conversation was copied.'));
    }
  });

  const root = document.getElementById('app') ?? document.body;
  root.classList.add('hermes-app');
  root.append(topBar.element, transcript.element, el('div', { class: 'dock' }, [signIn.element, planDock.element, composer.element]), announcer.element);

  bridge.onMessage((message) => {
    switch (message.type) {
      case 'session/snapshot':
      case 'session/patch': {
        const running = isTurnRunning(env);
        store.receive(message);
        if (running && !isTurnRunning(env)) {
          // A long reply's held-back tail is rendered in this task, not in the frame's.
          transcript.turnEnded();
        }
        return;
      }
      case 'composer/insert':
        composer.insert(message.text);
        return;
      case 'composer/attach':
        composer.attach(message.attachment);
        return;
      case 'composer/focus':
        composer.focus();
        return;
      case 'request/result':
        actions.settleRequest(message.id, message.ok, message.value, message.error);
        return;
      case 'host/reload':
        // The host replaces the page itself.
        return;
    }
  });

  document.addEventListener('keydown', (e) => {
    if (e.defaultPrevented) {
      return;
    }
    if ((e.ctrlKey || e.metaKey) && !e.altKey && !e.shiftKey && e.code === 'KeyF') {
      e.preventDefault();
      openFind();
      return;
    }
    const phase = store.header?.phase;
    if (e.key === 'Escape' && !e.altKey && !e.ctrlKey && !e.metaKey && phase === 'running') {
      e.preventDefault();
      actions.cancelTurn();
      return;
    }
    // e.code, not e.key: Alt+Y types "¥" on macOS.
    if (e.altKey && !e.ctrlKey && !e.metaKey && !e.shiftKey && (e.code === 'KeyY' || e.code === 'KeyN')) {
      const prompt = cardsIfLoaded()?.pendingPrompt(transcript.rows.mounted(), document.activeElement);
      const option = prompt?.option(e.code === 'KeyY' ? 'allow_once' : 'reject_once');
      if (prompt !== undefined && option !== undefined) {
        e.preventDefault();
        prompt.choose(option);
      }
    }
  });

  // A chat without the keyboard refreshes streamed text less often (chats side by side share a thread).
  win.addEventListener('focus', () => setPageFocused(true));
  win.addEventListener('blur', () => setPageFocused(false));
  if (document.visibilityState === 'visible') {
    setPageFocused(document.hasFocus());
  }

  actions.ready(options.clientId ?? newClientId(win));
  return { store, ui, actions, composer, transcript };
}

function newClientId(win: Window & typeof globalThis): string {
  const bytes = new Uint8Array(12);
  win.crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}
