/**
 * Host times (`startedAt`, `requestedAt`, `expiresAt`, …) come from the extension host's clock.
 * Each header carries `hostTime`; the difference to our clock at receipt is the skew, so elapsed
 * times and countdowns stay right even when the two clocks disagree (remote hosts).
 */
export class Clock {
  private skew = 0;

  constructor(private readonly localNow: () => number = () => Date.now()) {}

  observe(hostTime: number, receivedAt: number): void {
    this.skew = receivedAt - hostTime;
  }

  /** The host's clock now, as far as we can tell. */
  hostNow(): number {
    return this.localNow() - this.skew;
  }
}
