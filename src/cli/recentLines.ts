/** The agent's last stderr lines (as shown, secrets redacted), for errors that quote them. */
export class RecentLines {
  private readonly lines: string[] = [];
  private lastAt = 0;

  constructor(private readonly max: number) {}

  push(line: string): void {
    this.lines.push(line);
    this.lastAt = Date.now();
    if (this.lines.length > this.max) {
      this.lines.shift();
    }
  }

  text(): string {
    return this.lines.join('\n');
  }

  /**
   * Resolves once no line has come for 150 ms from now (at most 1 s): stderr and stdout are
   * separate pipes, so an answer can overtake the log line the agent wrote before it — by more
   * than 50 ms on a loaded machine. Only turns that failed wait for it.
   */
  async quiet(): Promise<void> {
    const from = Date.now();
    const until = from + 1000;
    do {
      await new Promise((resolve) => setTimeout(resolve, 25));
    } while (Date.now() < until && Date.now() - Math.max(this.lastAt, from) < 150);
  }
}
