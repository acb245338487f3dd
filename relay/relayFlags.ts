import { parseArgs } from 'node:util';
import { DEFAULT_MEMORY_BUDGET_BYTES, DEFAULT_UNROUTED_FRAME_BYTES } from './nodeBudget';
import { DEFAULT_CONNECT_RATE } from './rateLimit';
import { DEFAULT_LINK_PING_MS, DEFAULT_RELAY_MAX_CONNECTIONS, type RelayNodeOptions } from './relayNode';

export const RELAY_USAGE = `npm run relay -- --public-url https://HOST --nats nats://HOST:4222 --tls-port N
  [--port N] [--host H] [--node-id ID] [--max-connections N] [--connect-burst N] [--connect-period-ms MS] [--client-address-header NAME]
  [--memory-budget-mib N] [--unrouted-frame-bytes N] [--link-ping-ms MS]`;

const MiB = 1024 * 1024;

function positiveInteger(value: string | undefined, flag: string, fallback: number): number {
  if (value === undefined) return fallback;
  const number = Number(value);
  if (!Number.isInteger(number) || number < 1)
    throw new Error(`${flag} must be a positive whole number, not "${value}".`);
  return number;
}

/** Room for a channel frame (33 MiB) on its way in and on its way out. */
const MIN_MEMORY_BUDGET_MIB = 64;
/** A desktop's registration must still fit. */
const MIN_UNROUTED_FRAME_BYTES = 1024;
/** Pings more often than this would be taken for silence on a busy machine. */
const MIN_LINK_PING_MS = 100;

function atLeast(value: number, min: number, flag: string): number {
  if (value < min) throw new Error(`${flag} must be at least ${min}, not ${value}.`);
  return value;
}

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
  const port = values.port === undefined ? 8443 : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new Error(`--port must be a port number, not "${values.port}".`);
  const tlsPort = values['tls-port'] === undefined ? undefined : Number(values['tls-port']);
  if (tlsPort !== undefined && (!Number.isInteger(tlsPort) || tlsPort < 0 || tlsPort > 65535))
    throw new Error(`--tls-port must be a port number, not "${values['tls-port']}".`);
  return {
    publicUrl: values['public-url'],
    tlsPort,
    natsUrl: values.nats,
    port,
    host: values.host ?? '127.0.0.1',
    nodeId: values['node-id'],
    maxConnections: positiveInteger(values['max-connections'], '--max-connections', DEFAULT_RELAY_MAX_CONNECTIONS),
    clientAddressHeader: values['client-address-header'],
    memoryBudgetBytes:
      atLeast(
        positiveInteger(values['memory-budget-mib'], '--memory-budget-mib', DEFAULT_MEMORY_BUDGET_BYTES / MiB),
        MIN_MEMORY_BUDGET_MIB,
        '--memory-budget-mib',
      ) * MiB,
    unroutedFrameBytes: atLeast(
      positiveInteger(values['unrouted-frame-bytes'], '--unrouted-frame-bytes', DEFAULT_UNROUTED_FRAME_BYTES),
      MIN_UNROUTED_FRAME_BYTES,
      '--unrouted-frame-bytes',
    ),
    linkPingMs: atLeast(
      positiveInteger(values['link-ping-ms'], '--link-ping-ms', DEFAULT_LINK_PING_MS),
      MIN_LINK_PING_MS,
      '--link-ping-ms',
    ),
    connectRate: {
      burst: positiveInteger(values['connect-burst'], '--connect-burst', DEFAULT_CONNECT_RATE.burst),
      periodMs: positiveInteger(values['connect-period-ms'], '--connect-period-ms', DEFAULT_CONNECT_RATE.periodMs),
    },
  };
}
