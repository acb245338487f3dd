/**
 * Child starts, one per turn of the event loop. `child_process.spawn` forks on the calling
 * thread, and a fork blocks it for milliseconds that grow with the runtime's memory; 200
 * sessions starting commands in the same tick would otherwise stall every other call for
 * seconds. Between two starts the loop polls I/O, so a cheap call waits for one fork at most.
 */
export class StartQueue {
  private readonly waiting: (() => void)[] = [];
  private scheduled = false;

  /** Runs `start` at its turn; rejects with the signal's reason if aborted before that. */
  run<T>(start: () => T, signal?: AbortSignal): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const turn = () => {
        signal?.removeEventListener('abort', onAbort);
        if (signal?.aborted) reject(signal.reason);
        else
          try {
            resolve(start());
          } catch (error) {
            reject(error);
          }
      };
      const onAbort = () => {
        const index = this.waiting.indexOf(turn);
        if (index >= 0) this.waiting.splice(index, 1);
        reject(signal?.reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(turn);
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || this.waiting.length === 0) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.waiting.shift()?.();
      this.schedule();
    });
  }
}

/** One queue for the whole process: the cost of a fork is the process's, whoever asks for it. */
export const childStarts = new StartQueue();
