// Runs in the page (bundled by bench/lib/pageBundle.ts): the two contenders of PERF-3.
import { readProjectFileChunks } from '../../lib/client/fileChunks';
import { connected } from './pageRpc';

export interface Perf3Args {
  token: string;
  projectDirectory: string;
  path: string;
  httpUrl: string;
}

export interface Perf3Run {
  ms: number;
  bytes: number;
}

/** files.readBinary in verified chunks (SHA-256 of each checked), collected into a Blob as the viewer does. */
async function readOverRpc(args: Perf3Args): Promise<Perf3Run> {
  const rpc = await connected(args.token);
  const started = performance.now();
  const parts: Uint8Array<ArrayBuffer>[] = [];
  for await (const chunk of readProjectFileChunks(rpc, { projectDirectory: args.projectDirectory, path: args.path }))
    parts.push(chunk.data as Uint8Array<ArrayBuffer>);
  const blob = new Blob(parts);
  return { ms: performance.now() - started, bytes: blob.size };
}

/** The same file as one plain HTTP download, into a Blob. */
async function downloadOverHttp(args: Perf3Args): Promise<Perf3Run> {
  const started = performance.now();
  const blob = await (await fetch(args.httpUrl, { cache: 'no-store' })).blob();
  return { ms: performance.now() - started, bytes: blob.size };
}

/** SHA-256 of the whole file as read over RPC, to check the bytes outside the timing. */
async function digestOverRpc(args: Perf3Args): Promise<string> {
  const rpc = await connected(args.token);
  const parts: Uint8Array<ArrayBuffer>[] = [];
  for await (const chunk of readProjectFileChunks(rpc, { projectDirectory: args.projectDirectory, path: args.path }))
    parts.push(chunk.data as Uint8Array<ArrayBuffer>);
  const whole = new Uint8Array(await new Blob(parts).arrayBuffer());
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', whole));
  return [...digest].map((b) => b.toString(16).padStart(2, '0')).join('');
}

Object.assign(globalThis, { perf3: { readOverRpc, downloadOverHttp, digestOverRpc } });
