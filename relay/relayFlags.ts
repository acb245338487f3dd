import { parseArgs } from 'node:util';
import { parseIntegerFlag, type IntegerRange } from '../lib/shared/integerFlag';
import { DEFAULT_MEMORY_BUDGET_BYTES, DEFAULT_UNROUTED_FRAME_BYTES } from './nodeBudget';
import { DEFAULT_CONNECT_RATE } from './rateLimit';
import { DEFAULT_LINK_PING_MS, DEFAULT_RELAY_MAX_CONNECTIONS, type RelayNodeOptions } from './relayNode';

export const RELAY_USAGE = `npm run relay -- --public-url https://HOST --nats nats://HOST:4222 --tls-port N
  [--port N] [--host H] [--node-id ID] [--max-connections N] [--connect-burst N] [--connect-period-ms MS] [--client-address-header NAME]
  [--memory-budget-mib N] [--unrouted-frame-bytes N] [--link-ping-ms MS]`;

const MiB = 1024 * 1024;
const PORT: IntegerRange = { min: 0, max: 65535 };

/** A whole-number flag, `fallback` when not given; anything else names the flag (the shared parser). */
function integer(value: string | undefined, flag: string, fallback: number, range: IntegerRange = { min: 1 }): number {
  return value === undefined ? fallback : parseIntegerFlag(value, flag, range);
}

/** Room for a channel frame (33 MiB) on its way in and on its way out. */
const MIN_MEMORY_BUDGET_MIB = 64;
/** A desktop's registration must still fit. */
const MIN_UNROUTED_FRAME_BYTES = 1024;
/** Pings more often than this would be taken for silence on a busy machine. */
const MIN_LINK_PING_MS = 100;

/** The relay's command line; the public URL is checked by startRelayNode. */
export function parseRelayFlags(argv: string[]): RelayNodeOptions {
  const { values } = parseArgs({
    args: argv,
    options: {
      'public-url': { type: 'string' },
      nats: { type: 'string' },
      port: { type: 'string' },
      'tls-port': { type: 'string' },
      host: { type: 'string' },
      'node-id': { type: 'string' },
      'max-connections': { type: 'string' },
      'connect-burst': { type: 'string' },
      'connect-period-ms': { type: 'string' },
      'client-address-header': { type: 'string' },
      'memory-budget-mib': { type: 'string' },
      'unrouted-frame-bytes': { type: 'string' },
      'link-ping-ms': { type: 'string' },
    },
    strict: true,
    allowPositionals: false,
  });
  if (!values['public-url'] || !values.nats)
    throw new Error(`--public-url and --nats are required.\nUsage: ${RELAY_USAGE}`);
  const port = integer(values.port, '--port', 8443, PORT);
  const tlsPort =
    values['tls-port'] === undefined ? undefined : parseIntegerFlag(values['tls-port'], '--tls-port', PORT);
  return {
    publicUrl: values['public-url'],
    tlsPort,
    natsUrl: values.nats,
    port,
    host: values.host ?? '127.0.0.1',
    nodeId: values['node-id'],
    maxConnections: integer(values['max-connections'], '--max-connections', DEFAULT_RELAY_MAX_CONNECTIONS),
    clientAddressHeader: values['client-address-header'],
    memoryBudgetBytes:
      integer(values['memory-budget-mib'], '--memory-budget-mib', DEFAULT_MEMORY_BUDGET_BYTES / MiB, {
        min: MIN_MEMORY_BUDGET_MIB,
        unit: 'MiB',
      }) * MiB,
    unroutedFrameBytes: integer(
      values['unrouted-frame-bytes'],
      '--unrouted-frame-bytes',
      DEFAULT_UNROUTED_FRAME_BYTES,
      {
        min: MIN_UNROUTED_FRAME_BYTES,
        unit: 'bytes',
      },
    ),
    linkPingMs: integer(values['link-ping-ms'], '--link-ping-ms', DEFAULT_LINK_PING_MS, {
      min: MIN_LINK_PING_MS,
      unit: 'ms',
    }),
    connectRate: {
      burst: integer(values['connect-burst'], '--connect-burst', DEFAULT_CONNECT_RATE.burst),
      periodMs: integer(values['connect-period-ms'], '--connect-period-ms', DEFAULT_CONNECT_RATE.periodMs),
    },
  };
}
