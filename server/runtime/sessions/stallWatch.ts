/**
 * A running turn's stall clock (ACC-3): every agent event resets it; after `stallMs` without
 * one the turn is stalled (`stalledSince`), and the next event ends the stall. `changed` runs on
 * each change so the message row is published with it.
 */
export class StallWatch {
  private lastActivity = Date.now();
  private timer: NodeJS.Timeout | null = null;
  stalledSince: number | null = null;
  /** Questions to the person still open (ACC-4): a turn waiting on its person is not stalled. */
  private waitingOnPerson = 0;

  constructor(
    private readonly stallMs: number,
    private readonly changed: () => void,
  ) {
    this.arm(stallMs);
  }

  private arm(delay: number): void {
    this.timer = setTimeout(() => this.check(), delay);
    this.timer.unref();
  }

  private check(): void {
    this.timer = null;
    if (this.waitingOnPerson > 0) return;
    const idle = Date.now() - this.lastActivity;
    if (idle < this.stallMs) return this.arm(this.stallMs - idle);
    this.stalledSince = this.lastActivity + this.stallMs;
    this.changed();
  }

  touch(): void {
    this.lastActivity = Date.now();
    if (this.stalledSince !== null) {
      this.stalledSince = null;
      this.changed();
    }
    if (!this.timer) this.arm(this.stallMs);
  }

  /** The agent asks the person and waits (ACC-3, ACC-4): no stall until every such question is answered. */
  hold(): void {
    this.waitingOnPerson++;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.stalledSince !== null) {
      this.stalledSince = null;
      this.changed();
    }
  }

  /** A question was answered (or went away): the stall clock starts again from now. */
  release(): void {
    this.waitingOnPerson = Math.max(0, this.waitingOnPerson - 1);
    if (this.waitingOnPerson === 0) this.touch();
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}
