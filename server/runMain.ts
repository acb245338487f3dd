import { parseCli } from './cli';
import { consoleLogger } from './runtime/log';
import type { RuntimeOptions } from './runtime/runtime';
import { startRuntime, startupBanner } from './startRuntime';

/** What only a test entry point adds to the command line's options (see `RuntimeOptions.agentDoubles`). */
export type EntryExtras = Pick<RuntimeOptions, 'agentDoubles'>;

/** The runtime process: parse the command line, start, print the banner, stop cleanly on SIGTERM/SIGINT. */
export async function runMain(extras: EntryExtras = {}): Promise<void> {
  let options;
  try {
    options = parseCli(process.argv.slice(2));
  } catch (error) {
    process.stderr.write(`hbcode: ${(error as Error).message}\n`);
    process.exit(2);
  }
  // NOTE: under a file-size limit the kernel sends SIGXFSZ, whose default action kills the
  // process. Handled, the write fails with EFBIG instead and OUT-3 marks that one output
  // unavailable while the runtime stays up.
  if (process.platform !== 'win32') process.on('SIGXFSZ', () => {});
  const running = await startRuntime(options, consoleLogger, extras);
  process.stdout.write(startupBanner(running));

  let signals = 0;
  const onSignal = (signal: NodeJS.Signals) => {
    if (++signals > 1) process.exit(130);
    consoleLogger.info('shutting down', { signal });
    running.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        consoleLogger.error('shutdown failed', { reason: (error as Error).message });
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
}
