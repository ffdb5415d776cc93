/**
 * Long work that never waits for I/O (reads from the embedded database answer at once) would hold the event loop:
 * no request answered, no timer run, no log line written until it ends. `Turns.take` lets the loop turn once the
 * work has run `sliceMs` since the last turn, and costs a clock read otherwise.
 */
export class Turns {
  private sliceStartedAt = performance.now();

  constructor(private readonly sliceMs = 10) {}

  async take(): Promise<void> {
    if (performance.now() - this.sliceStartedAt < this.sliceMs) return;
    await new Promise((resolve) => setImmediate(resolve));
    this.sliceStartedAt = performance.now();
  }
}
