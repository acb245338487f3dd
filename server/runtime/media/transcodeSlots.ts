/**
 * At most `size` transcodes at a time (FILE-11): the others wait in order, so a phone opening a
 * folder of videos cannot start one ffmpeg per file and starve the runtime.
 */
export class TranscodeSlots {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly size: number) {}

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.running >= this.size) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.running++;
    try {
      return await work();
    } finally {
      // The slot passes straight to the next in line, so `running` stays counted.
      const next = this.waiting.shift();
      if (next) next();
      else this.running--;
    }
  }
}
