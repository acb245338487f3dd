import { parseRelayFlags } from './relayFlags';
import { startRelayNode } from './relayNode';

/** `npm run relay -- …` (RLY-1): one relay node; stops cleanly on SIGINT/SIGTERM. */
async function main(): Promise<void> {
  const options = parseRelayFlags(process.argv.slice(2));
  const node = await startRelayNode(options);
  const tls = node.tlsPort === null ? '' : ` (TLS passthrough on port ${node.tlsPort})`;
  process.stdout.write(
    `Relay node ${node.nodeId} listening on ${options.host}:${node.port}${tls} for ${options.publicUrl}\n`,
  );
  // A supervisor that started the node with an IPC channel (the tests do) may ask for its counters.
  if (process.send) {
    process.on('message', (message) => {
      if (message === 'stats') process.send?.({ stats: node.stats() });
    });
    process.channel?.unref();
  }
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      void node.stop().then(() => process.exit(0));
    });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`hbcode relay: ${(error as Error).message}\n`);
  process.exit(1);
});
