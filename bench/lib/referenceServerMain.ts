/** Child-process entry for the reference file server: prints its port as one JSON line. */
import { startFileServer } from './referenceServers';

const file = process.argv[2];
if (!file) throw new Error('usage: referenceServerMain.ts FILE');
const fileServer = await startFileServer(file);
process.stdout.write(JSON.stringify({ httpPort: fileServer.port }) + '\n');
process.on('SIGTERM', () => {
  void fileServer.close().then(() => process.exit(0));
});
