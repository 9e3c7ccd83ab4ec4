/** A promise with its resolve/reject exposed, settled at most once. */
export class Deferred<T> {
  readonly promise: Promise<T>;
  private resolveFn!: (value: T) => void;
  private rejectFn!: (reason: unknown) => void;
  private settledFlag = false;

  constructor() {
    this.promise = new Promise<T>((resolve, reject) => {
      this.resolveFn = resolve;
      this.rejectFn = reject;
    });
  }

  get isSettled(): boolean {
    return this.settledFlag;
  }

  resolve(value: T): boolean {
    if (this.settledFlag) {
      return false;
    }
    this.settledFlag = true;
    this.resolveFn(value);
    return true;
  }

  reject(reason: unknown): boolean {
    if (this.settledFlag) {
      return false;
    }
    this.settledFlag = true;
    this.rejectFn(reason);
    return true;
  }
}
