import type { ConfigOptionView, SelectView, SessionHeaderView } from '../../protocol/sessionView';
import { clear, el, icon, setAttr, setHidden, uniqueId } from '../dom';
import { t } from '../strings';
import { compactNumber, formatCost, formatDuration, visibleTitle } from '../text';
import type { RenderEnv } from './env';

/** Whole seconds under a minute (a ticking label), then minutes and seconds. */
function elapsed(ms: number): string {
  const safe = Math.max(0, ms);
  return safe < 60_000 ? t('{0} s', Math.floor(safe / 1000)) : formatDuration(safe);
}

function phaseText(header: SessionHeaderView, hostNow: number): string | undefined {
  // Restart Agent: from the click until the session is back, a start — never "Agent exited".
  if (header.restarting === true && (header.phase === 'exited' || header.phase === 'starting' || header.phase === 'new')) {
    return t('Restarting…');
  }
  switch (header.phase) {
    case 'starting':
      return t('Starting…');
    case 'running':
      return header.turnStartedAt === undefined ? t('Working…') : t('Working… {0}', elapsed(hostNow - header.turnStartedAt));
    case 'cancelling':
      return t('Cancelling…');
    case 'exited':
      return t('Agent exited');
    case 'new':
    case 'idle':
      return undefined;
  }
}

/** The top bar: agent name (+ the host's badge: Demo, a worktree's branch), session title, phase, and the context usage gauge. */
export class TopBar {
  readonly element = el('header', { class: 'topbar' });
  readonly #agent = el('span', { class: 'agent-name' });
  readonly #badge = el('span');
  readonly #title = el('span', { class: 'session-title' });
  readonly #phase = el('span', { class: 'phase' });
  readonly #usage = el('div', { class: 'usage' });
  readonly #meter = el('meter', { class: 'usage-meter', attrs: { min: '0' } });
  readonly #usageText = el('span', { class: 'usage-text' });
  readonly #cost = el('span', { class: 'usage-cost' });
  #header: SessionHeaderView | undefined;
  #ticking = false;
  readonly #tick = (): void => this.#renderPhase();

  readonly #env: RenderEnv;

  constructor(env: RenderEnv) {
    this.#env = env;
    const meterId = uniqueId('usage');
    this.#usageText.id = meterId;
    this.#meter.setAttribute('aria-labelledby', meterId);
    this.#usage.append(this.#meter, this.#usageText, this.#cost);
    this.element.append(el('div', { class: 'topbar-main' }, [icon('hubot', 'agent-icon'), this.#agent, this.#badge, this.#title]), this.#phase, this.#usage);
  }

  #renderPhase(): void {
    const header = this.#header;
    if (header === undefined) {
      return;
    }
    const phase = phaseLabel(header, this.#env);
    setAttr(this.#phase, 'class', `phase phase-${header.restarting === true && header.phase === 'exited' ? 'starting' : header.phase}`);
    if (this.#phase.textContent !== (phase ?? '')) {
      this.#phase.textContent = phase ?? '';
    }
    setHidden(this.#phase, phase === undefined);
  }

  update(header: SessionHeaderView): void {
    this.#agent.textContent = header.agentName;
    const badge = header.badge;
    setAttr(this.#badge, 'class', `badge badge-${badge?.kind ?? ''}`);
    this.#badge.textContent = badge?.label ?? '';
    this.#badge.title = badge?.title ?? '';
    setHidden(this.#badge, badge === undefined);
    const title = header.title !== undefined && header.title !== '' ? visibleTitle(header.title) : '';
    this.#title.textContent = title;
    this.#title.title = title;
    setHidden(this.#title, title === '');
    this.#header = header;
    this.#renderPhase();
    const running = header.phase === 'running' && header.turnStartedAt !== undefined;
    if (running !== this.#ticking) {
      this.#ticking = running;
      if (running) {
        this.#env.ticker.add(this.#tick);
      } else {
        this.#env.ticker.remove(this.#tick);
      }
    }
    const usage = header.usage;
    setHidden(this.#usage, usage === undefined);
    if (usage !== undefined) {
      const size = Math.max(1, usage.size);
      this.#meter.max = size;
      this.#meter.value = Math.min(usage.used, size);
      this.#meter.low = size * 0.7;
      this.#meter.high = size * 0.9;
      this.#meter.optimum = 0;
      this.#usageText.textContent = t('context {0} / {1}', compactNumber(usage.used), compactNumber(usage.size));
      // Not a turn's tokens (the footers count those): how full the model's context window is now.
      this.#usage.title = t(
        'Context window: {0} of {1} tokens in use. Turn footers count each turn’s own tokens.',
        usage.used.toLocaleString(),
        usage.size.toLocaleString(),
      );
      this.#cost.textContent = usage.cost !== undefined ? formatCost(usage.cost.amount, usage.cost.currency) : '';
      setHidden(this.#cost, usage.cost === undefined);
    }
  }
}

/** The phase in words; while a turn runs, with its elapsed time (host clock, skew-corrected). */
function phaseLabel(header: SessionHeaderView, env: RenderEnv): string | undefined {
  return phaseText(header, env.clock.hostNow());
}

/** Mode, model and the agent's config options, as labelled `<select>`s and checkboxes. */
export class SessionControls {
  readonly element = el('div', { class: 'session-controls' });
  #mode: SelectControl;
  #model: SelectControl;
  readonly #config = el('div', { class: 'config-options' });
  #configKey = '';
  readonly #configControls = new Map<string, SelectControl | HTMLInputElement>();

  readonly #env: RenderEnv;

  constructor(env: RenderEnv) {
    this.#env = env;
    this.#mode = new SelectControl(t('Mode'), modeIcon, (id) => this.#env.actions.setMode(id));
    this.#model = new SelectControl(t('Model'), modelIcon, (id) => this.#env.actions.setModel(id));
    this.element.append(this.#mode.element, this.#model.element, this.#config);
  }

  update(header: SessionHeaderView): void {
    const disabled = header.readOnly || header.phase === 'exited';
    this.#mode.update(header.modes, disabled);
    this.#model.update(header.models, disabled);
    const key = JSON.stringify(header.configOptions.map((o) => (o.type === 'select' ? [o.id, o.name, o.select.options] : [o.id, o.name])));
    if (key !== this.#configKey) {
      this.#configKey = key;
      this.#buildConfig(header.configOptions);
    }
    for (const option of header.configOptions) {
      const control = this.#configControls.get(option.id);
      if (control instanceof SelectControl && option.type === 'select') {
        control.update(option.select, disabled);
      } else if (control !== undefined && !(control instanceof SelectControl) && option.type === 'boolean') {
        control.checked = option.value;
        control.disabled = disabled;
      }
    }
    setHidden(this.element, header.modes === undefined && header.models === undefined && header.configOptions.length === 0);
  }

  #buildConfig(options: readonly ConfigOptionView[]): void {
    clear(this.#config);
    this.#configControls.clear();
    for (const option of options) {
      if (option.type === 'select') {
        const id = option.id;
        // Claude sends its mode and model as config options: the same icons and labels as the legacy selectors.
        const [label, iconName] = option.category === 'mode' ? [t('Mode'), modeIcon] : option.category === 'model' ? [t('Model'), modelIcon] : [option.name, 'settings'];
        const control = new SelectControl(label, iconName, (value) => this.#env.actions.setConfig(id, value));
        this.#configControls.set(option.id, control);
        this.#config.appendChild(control.element);
      } else {
        const box = el('input', { attrs: { type: 'checkbox' } });
        const id = option.id;
        box.addEventListener('change', () => this.#env.actions.setConfig(id, box.checked));
        this.#configControls.set(option.id, box);
        this.#config.appendChild(el('label', { class: 'control control-check' }, [box, el('span', { text: option.name })]));
      }
    }
  }
}

const modeIcon = 'symbol-namespace';
const modelIcon = 'sparkle';

/**
 * A labelled `<select>` ("Mode: Default", "Model: Default": the label is visible, so two selectors
 * showing "Default" can be told apart); rebuilt only when its options change, so focus and the
 * open list survive updates.
 */
class SelectControl {
  readonly element: HTMLElement;
  readonly #select = el('select');
  #optionsKey = '';

  constructor(label: string, iconName: string, onChange: (id: string) => void) {
    const id = uniqueId('select');
    this.#select.id = id;
    this.#select.title = label;
    this.element = el('div', { class: 'control' }, [
      el('label', { class: 'visually-hidden', attrs: { for: id }, text: label }),
      icon(iconName, 'control-icon'),
      el('span', { class: 'control-label', attrs: { 'aria-hidden': 'true' }, text: t('{0}:', label) }),
      this.#select,
    ]);
    this.#select.addEventListener('change', () => onChange(this.#select.value));
  }

  update(view: SelectView | undefined, disabled: boolean): void {
    setHidden(this.element, view === undefined || view.options.length === 0);
    if (view === undefined) {
      return;
    }
    const key = JSON.stringify(view.options);
    if (key !== this.#optionsKey) {
      this.#optionsKey = key;
      clear(this.#select);
      for (const option of view.options) {
        const o = el('option', { text: option.name, attrs: { value: option.id, title: option.description } });
        this.#select.appendChild(o);
      }
    }
    if (this.#select.value !== view.current) {
      this.#select.value = view.current;
    }
    this.#select.disabled = disabled;
  }
}

/** The live plan, compact, above the composer: progress and the current step; expands to the list. */
