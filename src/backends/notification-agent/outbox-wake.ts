// How an outbox's sender waits: until rows are written (or an attempt ends), or a while, to look for
// rows another process left. A wake that comes while the sender is busy is kept for its next wait,
// so nothing written meanwhile waits out a whole pause. Used by amqp.ts and webhook-delivery.ts.
export class OutboxWake {
  private wake: (() => void) | undefined;
  /** Woken since the sender last looked: its next wait returns at once. */
  private woken = false;
  private readonly stopped: AbortSignal;

  /** `stopped`: once aborted, every wait returns at once. */
  constructor(stopped: AbortSignal) {
    this.stopped = stopped;
  }

  /** The sender is about to look at the outbox: what is written from now on wakes it again. */
  looking(): void {
    this.woken = false;
  }

  /** Rows were written (or an attempt ended): the sender looks again now, or after what it is doing. */
  wakeUp(): void {
    const wake = this.wake;
    this.wake = undefined;
    if (wake) wake();
    else this.woken = true;
  }

  /** Resolves when woken, or after `ms`. */
  wait(ms: number): Promise<void> {
    if (this.woken || this.stopped.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      timer.unref();
      this.wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }
}
