'use client';
import { useEffect, useState } from 'react';
import { renditionAskFor, renditionChunkReader } from '../../lib/client/files/renditionChunks';
import { serveRenditionStream } from '../../lib/client/files/mediaStreams';
import { openProjectFile } from '../../lib/client/openProjectFile';
import type { RpcClient } from '../../lib/client/rpcClient';
import { readVerifiedChunks } from '../../lib/client/verifiedChunks';
import type { MediaFamily } from '../../lib/protocol/mimeTypes';
import { formatBytes } from '../formatting';
import { failedReadState, PrivateFile, type PrivateRefusal } from './PrivateFile';

interface Shown {
  url: string;
  mimeType: string;
  renditionBytes: number;
  originalBytes: number;
  /** Played through the service worker's range reads (FILE-13), not read whole first. */
  streamed: boolean;
}

type State = { kind: 'preparing' } | { kind: 'shown'; shown: Shown } | { kind: 'error'; message: string } | ({ kind: 'private' } & PrivateRefusal);

interface MediaViewProps {
  client: RpcClient;
  projectDirectory: string;
  path: string;
  family: MediaFamily;
}

const canPlay = (type: string) => document.createElement('video').canPlayType(type) !== '';

/**
 * An image, video or audio file as a rendition made for this screen (FILE-10): images read whole
 * as a blob; video and audio played through the service worker's range reads when it controls
 * the page (FILE-13), else read whole. Both sizes are shown, and the original can be downloaded.
 */
export function MediaView({ client, projectDirectory, path, family }: MediaViewProps) {
  const [state, setState] = useState<State>({ kind: 'preparing' });
  const name = path.split('/').pop() ?? path;

  useEffect(() => {
    const abort = new AbortController();
    let revoke: (() => void) | null = null;
    setState({ kind: 'preparing' });
    let originalBytes = 0;
    const ask = renditionAskFor({ projectDirectory, path }, family, { width: window.innerWidth, height: window.innerHeight, pixelRatio: window.devicePixelRatio || 1 }, canPlay);
    const read = renditionChunkReader(client, ask, (bytes) => (originalBytes = bytes));
    void (async () => {
      try {
        // The first chunk makes the rendition (or finds it kept), so a player's requests are quick.
        const first = await read(0);
        if (abort.signal.aborted) return;
        const stream = family === 'image' ? null : serveRenditionStream(read);
        let url: string;
        if (stream) {
          url = stream.url;
          revoke = stream.dispose;
        } else {
          const parts: Uint8Array<ArrayBuffer>[] = [];
          for await (const chunk of readVerifiedChunks(read, { inFlight: 4, signal: abort.signal })) parts.push(chunk.data as Uint8Array<ArrayBuffer>);
          if (abort.signal.aborted) return;
          url = URL.createObjectURL(new Blob(parts, { type: first.header.mimeType }));
          revoke = () => URL.revokeObjectURL(url);
        }
        setState({ kind: 'shown', shown: { url, mimeType: first.header.mimeType, renditionBytes: first.header.size, originalBytes, streamed: stream !== null } });
      } catch (error) {
        if (abort.signal.aborted) return;
        setState(failedReadState(error));
      }
    })();
    return () => {
      abort.abort();
      revoke?.();
    };
  }, [client, projectDirectory, path, family]);

  if (state.kind === 'private') return <PrivateFile name={name} message={state.message} allowWith={state.allowWith} />;
  return (
    <div className="file-view" data-viewer={family} data-rendition={state.kind}>
      <div className="row file-bar">
        <span className="grow muted" role={state.kind === 'preparing' ? 'status' : undefined}>
          {state.kind === 'preparing' && `Preparing ${name} for this screen…`}
          {state.kind === 'shown' && (
            <>
              Original {formatBytes(state.shown.originalBytes)} · shown as {state.shown.mimeType.split('/')[1]?.toUpperCase()} {formatBytes(state.shown.renditionBytes)}
            </>
          )}
        </span>
        <DownloadOriginal client={client} projectDirectory={projectDirectory} path={path} name={name} />
      </div>
      {state.kind === 'error' && (
        <p className="error" role="alert">
          {state.message}
        </p>
      )}
      {state.kind === 'shown' && <MediaElement family={family} shown={state.shown} name={name} />}
    </div>
  );
}

function MediaElement({ family, shown, name }: { family: MediaFamily; shown: Shown; name: string }) {
  const streamed = shown.streamed ? 'range' : 'blob';
  if (family === 'image') return <img className="file-media" src={shown.url} alt={name} />;
  if (family === 'audio') return <audio className="file-media" src={shown.url} controls preload="metadata" data-source={streamed} />;
  return <video className="file-media" src={shown.url} controls playsInline preload="metadata" data-source={streamed} />;
}

type Download = { kind: 'idle' } | { kind: 'loading'; loaded: number; total: number } | { kind: 'failed'; message: string };

/** The original's bytes, read in verified chunks (FILE-2) and handed to the browser as a download. */
function DownloadOriginal({ client, projectDirectory, path, name }: { client: RpcClient; projectDirectory: string; path: string; name: string }) {
  const [download, setDownload] = useState<Download>({ kind: 'idle' });
  const start = async () => {
    setDownload({ kind: 'loading', loaded: 0, total: 0 });
    try {
      const file = await openProjectFile(client, { projectDirectory, path }, { onProgress: (loaded, total) => setDownload({ kind: 'loading', loaded, total }) });
      if (!file) throw new Error('The file could not be read.');
      const url = URL.createObjectURL(file.blob);
      const link = document.createElement('a');
      link.href = url;
      link.download = name;
      link.click();
      // NOTE: revoked later, not at once: the browser reads the blob after the click returns.
      setTimeout(() => URL.revokeObjectURL(url), 60_000);
      setDownload({ kind: 'idle' });
    } catch (error) {
      setDownload({ kind: 'failed', message: (error as Error).message });
    }
  };
  return (
    <>
      {download.kind === 'failed' && (
        <span className="error" role="alert">
          {download.message}
        </span>
      )}
      <button type="button" className="button-link" onClick={() => void start()} disabled={download.kind === 'loading'}>
        {download.kind === 'loading' ? `Downloading… ${download.total > 0 ? `${Math.floor((100 * download.loaded) / download.total)}%` : ''}` : 'Download original'}
      </button>
    </>
  );
}
