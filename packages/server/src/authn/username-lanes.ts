interface Turn {
  /** From a client with nothing against the username: goes ahead of the others. */
  clean: boolean;
  /** Runs the check; never rejects (its outcome reaches the caller through the promise `run` returned). */
  start: () => Promise<void>;
}

/**
 * The password checks of one username, one at a time: each waits the username's delay (read when its turn comes, so
 * it grows with the failures before it), then the first waiting turn runs. Clean turns (clients with no failure and no
 * attempt under way for the username) queue ahead of the others, and a turn is chosen only once the wait ends: an
 * owner arriving while strangers' guesses queue takes the next turn, within one delay. So however many clients guess
 * at once, a username gets at most one check per delay, and its owner is never stuck behind them.
 */
export class UsernameLanes {
  private readonly lanes = new Map<string, Turn[]>();

  constructor(
    /** The wait before the next check of a username. */
    private readonly delayOf: (username: string) => number,
    private readonly sleep: (ms: number) => Promise<void>,
  ) {}

  /** Runs `check` in the username's lane; resolves or rejects as it does. */
  run<T>(username: string, clean: boolean, check: () => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      // Through a promise, so a check that throws at once still rejects instead of stopping the lane.
      const turn: Turn = { clean, start: () => Promise.resolve().then(check).then(resolve, reject) };
      const waiting = this.lanes.get(username);
      if (waiting) {
        // Clean turns keep their arrival order among themselves, ahead of every other.
        const firstOther = clean ? waiting.findIndex((t) => !t.clean) : -1;
        if (firstOther === -1) waiting.push(turn);
        else waiting.splice(firstOther, 0, turn);
        return;
      }
      const lane = [turn];
      this.lanes.set(username, lane);
      void this.drain(username, lane);
    });
  }

  /** Checks of the username waiting for their turn (not the one running). */
  waiting(username: string): number {
    const lane = this.lanes.get(username);
    return lane ? lane.length : 0;
  }

  private async drain(username: string, lane: Turn[]): Promise<void> {
    while (lane.length > 0) {
      const delay = this.delayOf(username);
      if (delay > 0) await this.sleep(delay).catch(() => undefined);
      await lane.shift()!.start();
    }
    this.lanes.delete(username);
  }
}
