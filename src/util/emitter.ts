import type { Disposable } from './disposable';

export type Listener<T> = (event: T) => void;

/** A minimal synchronous event emitter (the core cannot use vscode.EventEmitter). */
export class Emitter<T> implements Disposable {
  private listeners: Listener<T>[] = [];

  readonly event = (listener: Listener<T>): Disposable => {
    this.listeners.push(listener);
    return {
      dispose: () => {
        this.listeners = this.listeners.filter((l) => l !== listener);
      },
    };
  };

  fire(event: T): void {
    for (const listener of this.listeners) {
      listener(event);
    }
  }

  get hasListeners(): boolean {
    return this.listeners.length > 0;
  }

  dispose(): void {
    this.listeners = [];
  }
}
