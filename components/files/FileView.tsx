'use client';
import { useEffect, useState } from 'react';
import { openProjectFile, type OpenedFile } from '../../lib/client/openProjectFile';
import type { RpcClient } from '../../lib/client/rpcClient';
import { languageForPath } from '../../lib/highlight/languages';
import { MAX_TEXT_VIEW_BYTES } from '../../lib/highlight/limits';
import type { AppRoute } from '../../lib/client/appRoute';
import { formatBytes } from '../formatting';
import { headOf, type FileHead } from './fileHead';
import { looksLikeText, viewerKindOf, type ViewerKind } from './fileKinds';
import { failedReadState, PrivateFile, type PrivateRefusal } from './PrivateFile';
import { ProjectMarkdown } from './ProjectMarkdown';
import { SourceView } from './SourceView';
import { MediaView } from './MediaView';
import { mediaFamilyOf, mimeTypeForPath } from '../../lib/protocol/mimeTypes';

type Loaded = { file: OpenedFile; url: string; kind: ViewerKind; text: string | null };
type State =
  | { kind: 'loading'; loaded: number; total: number; head?: FileHead }
  | { kind: 'ready'; loaded: Loaded }
  | { kind: 'unsaved' }
  | { kind: 'error'; message: string }
  | ({ kind: 'private' } & PrivateRefusal);

interface FileViewProps {
  client: RpcClient | null;
  projectDirectory: string;
  path: string;
  navigate: (route: AppRoute) => void;
}

/**
 * One file: images, video and audio as renditions made for this screen (FILE-10), offline the
 * ones this device kept (FILE-15); anything else, and media offline without a kept rendition, as
 * the original.
 */
export function FileView(props: FileViewProps) {
  const family = mediaFamilyOf(mimeTypeForPath(props.path));
  if (family)
    return (
      <MediaView
        client={props.client}
        projectDirectory={props.projectDirectory}
        path={props.path}
        family={family}
        notKept={<OriginalFileView {...props} />}
      />
    );
  return <OriginalFileView {...props} />;
}

/**
 * One file, read in verified chunks into a blob URL (FILE-2, FILE-4): images, PDF, audio and video
 * from the blob; text highlighted; Markdown rendered; HTML offers Preview.
 */
function OriginalFileView({ client, projectDirectory, path, navigate }: FileViewProps) {
  const [state, setState] = useState<State>({ kind: 'loading', loaded: 0, total: 0 });
  const name = path.split('/').pop() ?? path;

  useEffect(() => {
    const abort = new AbortController();
    let url: string | null = null;
    setState({ kind: 'loading', loaded: 0, total: 0 });
    let head: FileHead | undefined;
    void (async () => {
      try {
        const file = await openProjectFile(
          client,
          { projectDirectory, path },
          {
            signal: abort.signal,
            // A large source file shows its first lines, highlighted, while the rest is read (PERF-6).
            onHead: (chunk) => {
              head = headOf(chunk, path) ?? undefined;
            },
            onProgress: (loaded, total) =>
              !abort.signal.aborted && setState({ kind: 'loading', loaded, total, ...(head ? { head } : {}) }),
          },
        );
        if (abort.signal.aborted) return;
        if (!file) return setState({ kind: 'unsaved' });
        let kind = viewerKindOf(file.header.mimeType, path);
        if (kind === 'binary' && file.blob.size <= MAX_TEXT_VIEW_BYTES && (await looksLikeText(file.blob)))
          kind = 'source';
        const isText = kind === 'source' || kind === 'markdown' || kind === 'html';
        const text = isText && file.blob.size <= MAX_TEXT_VIEW_BYTES ? await file.blob.text() : null;
        if (abort.signal.aborted) return;
        url = URL.createObjectURL(file.blob);
        setState({ kind: 'ready', loaded: { file, url, kind, text } });
      } catch (error) {
        if (abort.signal.aborted) return;
        setState(failedReadState(error));
      }
    })();
    return () => {
      abort.abort();
      if (url) URL.revokeObjectURL(url);
    };
  }, [client, projectDirectory, path]);

  if (state.kind === 'loading' && state.head) {
    // The same elements as a ready file, so the source view and its highlighting carry on.
    return (
      <div className="file-view" data-viewer={state.head.kind}>
        <div className="row file-bar">
          <span className="grow muted" role="status">
            Loading {name}… {formatBytes(state.loaded)} of {formatBytes(state.total)}
          </span>
        </div>
        <FileBody kind={state.head.kind} url="" name={name} path={path} text={state.head.text} partial />
      </div>
    );
  }
  if (state.kind === 'loading') {
    return (
      <p className="muted" role="status">
        Loading {name}… {state.total > 0 ? `${formatBytes(state.loaded)} of ${formatBytes(state.total)}` : ''}
      </p>
    );
  }
  if (state.kind === 'unsaved')
    return <p className="muted">This file was not saved on this device. Connect to the computer to open it.</p>;
  if (state.kind === 'error')
    return (
      <p className="error" role="alert">
        {state.message}
      </p>
    );
  if (state.kind === 'private') return <PrivateFile name={name} message={state.message} allowWith={state.allowWith} />;

  const { file, url, kind, text } = state.loaded;
  return (
    <div className="file-view" data-viewer={kind}>
      <div className="row file-bar">
        <span className="grow muted">
          {formatBytes(file.header.size)} · {file.header.mimeType}
          {file.fromCache ? ' · saved on this device' : ''}
        </span>
        {kind === 'html' && (
          <button className="primary" onClick={() => navigate({ kind: 'preview', projectDirectory, path })}>
            Preview
          </button>
        )}
        <a className="button-link" href={url} download={name}>
          Download
        </a>
      </div>
      {kind === 'markdown' && text !== null ? (
        <ProjectMarkdown
          client={client}
          projectDirectory={projectDirectory}
          path={path}
          markdown={text}
          navigate={navigate}
        />
      ) : (
        <FileBody kind={kind} url={url} name={name} path={path} text={text} />
      )}
    </div>
  );
}

function FileBody({
  kind,
  url,
  name,
  path,
  text,
  partial = false,
}: {
  kind: ViewerKind;
  url: string;
  name: string;
  path: string;
  text: string | null;
  partial?: boolean;
}) {
  switch (kind) {
    case 'image':
      return <img className="file-media" src={url} alt={name} />;
    case 'audio':
      return <audio className="file-media" src={url} controls />;
    case 'video':
      return <video className="file-media" src={url} controls playsInline />;
    case 'pdf':
      return (
        <p>
          <a href={url} target="_blank" rel="noopener">
            Open {name}
          </a>{' '}
          <span className="muted">(the PDF opens in the browser&apos;s viewer)</span>
        </p>
      );
    case 'markdown':
      return <TooLarge />; // a Markdown file small enough to render is a ProjectMarkdown
    case 'html':
    case 'source':
      return text === null ? (
        <TooLarge />
      ) : (
        <SourceView text={text} language={kind === 'html' ? 'html' : languageForPath(path)} partial={partial} />
      );
    case 'binary':
      return <p className="muted">This file is not text; download it to open it.</p>;
  }
}

function TooLarge() {
  return (
    <p className="muted">
      This file is larger than {formatBytes(MAX_TEXT_VIEW_BYTES)}, too large to show as text here; download it instead.
    </p>
  );
}
