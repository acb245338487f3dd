import { runMain } from './runMain';

runMain().catch((error: unknown) => {
  process.stderr.write(`hbcode: ${(error as Error).message}\n`);
  process.exit(1);
});
