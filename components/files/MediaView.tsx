'use client';
import { useEffect, useState, type ReactNode } from 'react';
import { openRendition, openVideoStill, type OpenedRendition } from '../../lib/client/files/openRendition';
import { openProjectFile } from '../../lib/client/openProjectFile';
import type { RpcClient } from '../../lib/client/rpcClient';
import type { MediaFamily } from '../../lib/protocol/mimeTypes';
import { formatBytes } from '../formatting';
import { failedReadState, PrivateFile, type PrivateRefusal } from './PrivateFile';

type State =
  | { kind: 'preparing' }
  | { kind: 'shown'; shown: OpenedRendition }
  | { kind: 'notKept' }
  | { kind: 'error'; message: string }
  | ({ kind: 'private' } & PrivateRefusal);

interface MediaViewProps {
  /** Null offline: the rendition kept on this device is shown (FILE-15). */
  client: RpcClient | null;
  projectDirectory: string;
  path: string;
  family: MediaFamily;
  /** What is shown offline when this device kept no rendition of the file (its saved original, if any). */
  notKept: ReactNode;
}

const canPlay = (type: string) => document.createElement('video').canPlayType(type) !== '';
const screenNow = () => ({
  width: window.innerWidth,
  height: window.innerHeight,
  pixelRatio: window.devicePixelRatio || 1,
});

/**
 * An image, video or audio file as a rendition made for this screen (FILE-10): images read whole
 * as a blob; video and audio played through the service worker's range reads when it controls the
 * page (FILE-13), a video's first frame shown while it is made (FILE-14). What was viewed is kept
 * on this device and shown offline (FILE-15). Both sizes are shown, and the original can be
 * downloaded while connected.
 */
export function MediaView({ client, projectDirectory, path, family, notKept }: MediaViewProps) {
  const [state, setState] = useState<State>({ kind: 'preparing' });
  const [still, setStill] = useState<string | null>(null);
  const name = path.split('/').pop() ?? path;

  useEffect(() => {
    const abort = new AbortController();
    const disposers: (() => void)[] = [];
    // What arrives after the view moved on is let go at once.
    const hold = (dispose: () => void) => (abort.signal.aborted ? dispose() : disposers.push(dispose));
    setState({ kind: 'preparing' });
    setStill(null);
    const ref = { projectDirectory, path };
    if (family === 'video') {
      openVideoStill(client, ref, screenNow(), abort.signal).then(
        (opened) => {
          if (!opened) return;
          hold(opened.dispose);
          if (!abort.signal.aborted) setStill(opened.url);
        },
        // The still only shortens the wait: the video's own answer says what went wrong.
        () => undefined,
      );
    }
    openRendition(client, ref, family, screenNow(), canPlay, abort.signal).then(
      (opened) => {
        if (opened) hold(opened.dispose);
        if (abort.signal.aborted) return;
        setState(opened ? { kind: 'shown', shown: opened } : { kind: 'notKept' });
      },
      (error: unknown) => !abort.signal.aborted && setState(failedReadState(error)),
    );
    return () => {
      abort.abort();
      for (const dispose of disposers) dispose();
    };
  }, [client, projectDirectory, path, family]);

  if (state.kind === 'notKept') return notKept;
  if (state.kind === 'private') return <PrivateFile name={name} message={state.message} allowWith={state.allowWith} />;
  return (
    <div className="file-view" data-viewer={family} data-rendition={state.kind}>
      <div className="row file-bar">
        <span className="grow muted" role={state.kind === 'preparing' ? 'status' : undefined}>
          {state.kind === 'preparing' && `Preparing ${name} for this screen…`}
          {state.kind === 'shown' && (
            <>
              Original {formatBytes(state.shown.originalBytes)} · shown as{' '}
              {state.shown.mimeType.split('/')[1]?.toUpperCase()}{' '}
              {state.shown.growing ? 'while it is made' : formatBytes(state.shown.renditionBytes)}
              {state.shown.fromDevice ? ' · saved on this device' : ''}
            </>
          )}
        </span>
        {client && <DownloadOriginal client={client} projectDirectory={projectDirectory} path={path} name={name} />}
      </div>
      {state.kind === 'error' && (
        <p className="error" role="alert">
          {state.message}
        </p>
      )}
      {state.kind === 'preparing' && still && (
        <img className="file-media" src={still} alt={`First frame of ${name}`} data-still="first-frame" />
      )}
      {state.kind === 'shown' && <MediaElement family={family} shown={state.shown} name={name} poster={still} />}
    </div>
  );
}

function MediaElement({
  family,
  shown,
  name,
  poster,
}: {
  family: MediaFamily;
  shown: OpenedRendition;
  name: string;
  poster: string | null;
}) {
  const streamed = shown.streamed ? 'range' : 'blob';
  if (family === 'image') return <img className="file-media" src={shown.url} alt={name} />;
  if (family === 'audio')
    return <audio className="file-media" src={shown.url} controls preload="metadata" data-source={streamed} />;
  return (
    <video
      className="file-media"
      src={shown.url}
      controls
      playsInline
      preload="metadata"
      data-source={streamed}
      {...(poster ? { poster } : {})}
    />
  );
}

type Download =
  { kind: 'idle' } | { kind: 'loading'; loaded: number; total: number } | { kind: 'failed'; message: string };

/** The original's bytes, read in verified chunks (FILE-2) and handed to the browser as a download. */
function DownloadOriginal({
  client,
  projectDirectory,
  path,
  name,
}: {
  client: RpcClient;
  projectDirectory: string;
  path: string;
  name: string;
}) {
  const [download, setDownload] = useState<Download>({ kind: 'idle' });
  const start = async () => {
    setDownload({ kind: 'loading', loaded: 0, total: 0 });
    try {
      const file = await openProjectFile(
        client,
        { projectDirectory, path },
        { onProgress: (loaded, total) => setDownload({ kind: 'loading', loaded, total }) },
      );
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
        {download.kind === 'loading'
          ? `Downloading… ${download.total > 0 ? `${Math.floor((100 * download.loaded) / download.total)}%` : ''}`
          : 'Download original'}
      </button>
    </>
  );
}
