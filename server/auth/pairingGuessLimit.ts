/** How many wrong pairing codes the whole runtime evaluates per window, whatever socket sends them (SEC-9). */
export interface PairingGuessLimitOptions {
  guesses: number;
  windowMs: number;
}

/**
 * Generous for a person mistyping a code, while a guesser on any number of fresh sockets gets
 * about 300 tries at a 50-bit code in the 10 minutes it lives.
 */
export const DEFAULT_PAIRING_GUESS_LIMIT: PairingGuessLimitOptions = { guesses: 30, windowMs: 60_000 };

/**
 * A sliding window over the wrong guesses of the last `windowMs`. Only wrong guesses count, and a
 * guess refused here is never evaluated, so a flood neither uses up nor invalidates a real code:
 * it only delays it until the window passes.
 */
export class PairingGuessLimit {
  /** When each counted wrong guess was made, oldest first; never longer than `guesses`. */
  private readonly wrongAt: number[] = [];

  constructor(private readonly options: PairingGuessLimitOptions) {}

  /** 0 when a guess may be evaluated now, else how long until one may. */
  retryAfterMs(now: number): number {
    while (this.wrongAt.length > 0 && this.wrongAt[0]! + this.options.windowMs <= now) this.wrongAt.shift();
    if (this.wrongAt.length < this.options.guesses) return 0;
    return this.wrongAt[0]! + this.options.windowMs - now;
  }

  recordWrongGuess(now: number): void {
    this.wrongAt.push(now);
  }
}
