/**
 * Long work that never waits for I/O (reads from the embedded database answer at once) would hold the event loop:
 * no request answered, no timer run, no log line written until it ends. `Turns.take` lets the loop turn once the
 * work has run `sliceMs` since the last turn, and costs a clock read otherwise.
 *
 * Many loops may share one Turns (a reconciler's workers): once the slice has run out, they all wait for the same
 * turn and resume together, so the loop turns again after one more slice. (Each waiting on a turn of its own, each
 * would resume in a callback of its own and start a fresh slice there: a hundred workers held the loop for a hundred
 * slices at a time.)
 */
export class Turns {
  private sliceStartedAt: number;
  private turn: Promise<void> | undefined;

  constructor(
    private readonly sliceMs = 10,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.sliceStartedAt = now();
  }

  take(): Promise<void> {
    if (this.turn) return this.turn;
    if (this.now() - this.sliceStartedAt < this.sliceMs) return Promise.resolve();
    this.turn = new Promise((resolve) =>
      setImmediate(() => {
        this.turn = undefined;
        this.sliceStartedAt = this.now();
        resolve();
      }),
    );
    return this.turn;
  }
}
