/** How often the app asks whether the preview's event loop runs (SEC-9). */
const PING_EVERY_MS = 1000;
/** A ping unanswered this long: the page is stuck in a loop, and the app stops it. */
export const STUCK_AFTER_MS = 8000;
const STUCK_AFTER_TICKS = 3;

export interface HeartbeatTarget {
  ping(sequence: number): void;
  /** How many frames the host page has (its previewed page: one). */
  pagesInFrame(): number;
  onStopped(reason: 'stuck' | 'crashed'): void;
}

/**
 * The app's watchdog over one preview (SEC-9). Stuck means STUCK_AFTER_MS unanswered and at
 * least STUCK_AFTER_TICKS ticks since the ping: after a frozen or throttled background tab wakes,
 * the first tick sees a long wait that the host page's answer, already on its way, has not had a
 * chance to end. NOTE: Chromium 156 has no `close` event on MessagePort; what shows a crash is
 * the frame tree: when a frame's process dies its child frames go, so the host page that had
 * opened the previewed page has none left.
 */
export class PreviewHeartbeat {
  private timer: ReturnType<typeof setInterval> | null = null;
  private sequence = 0;
  private unansweredSince: number | null = null;
  private unansweredTicks = 0;
  private sawPage = false;

  constructor(private readonly target: HeartbeatTarget) {}

  start(): void {
    this.timer ??= setInterval(() => this.tick(), PING_EVERY_MS);
  }

  answered(sequence: number): void {
    if (sequence === this.sequence) this.unansweredSince = null;
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  private tick(): void {
    if (this.target.pagesInFrame() > 0) this.sawPage = true;
    else if (this.sawPage) return this.stopFor('crashed');
    if (this.unansweredSince === null) {
      this.unansweredSince = Date.now();
      this.unansweredTicks = 0;
      this.sequence += 1;
      this.target.ping(this.sequence);
      return;
    }
    this.unansweredTicks += 1;
    if (Date.now() - this.unansweredSince > STUCK_AFTER_MS && this.unansweredTicks >= STUCK_AFTER_TICKS)
      this.stopFor('stuck');
  }

  private stopFor(reason: 'stuck' | 'crashed'): void {
    this.stop();
    this.target.onStopped(reason);
  }
}
