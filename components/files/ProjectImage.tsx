'use client';
import { useEffect, useState } from 'react';
import { openProjectFile } from '../../lib/client/openProjectFile';
import type { RpcClient } from '../../lib/client/rpcClient';
import { viewerKindOf } from './fileKinds';

type State = { kind: 'loading' } | { kind: 'shown'; url: string } | { kind: 'failed'; reason: string };

/**
 * An image a project's Markdown shows (FILE-4): read through the verified chunk path into a blob
 * URL, like the file viewer's own images, so the document never makes a request of its own.
 */
export function ProjectImage({
  client,
  projectDirectory,
  path,
  alt,
}: {
  client: RpcClient | null;
  projectDirectory: string;
  path: string;
  alt: string;
}) {
  const [state, setState] = useState<State>({ kind: 'loading' });
  useEffect(() => {
    const abort = new AbortController();
    let url: string | null = null;
    setState({ kind: 'loading' });
    openProjectFile(client, { projectDirectory, path }, { signal: abort.signal }).then(
      (file) => {
        if (abort.signal.aborted) return;
        if (!file) return setState({ kind: 'failed', reason: 'not saved on this device' });
        // NOTE: SVG can carry script; like the file viewer, only raster images are shown (FILE-4).
        if (viewerKindOf(file.header.mimeType, path) !== 'image')
          return setState({ kind: 'failed', reason: 'not an image' });
        url = URL.createObjectURL(file.blob);
        setState({ kind: 'shown', url });
      },
      (error: unknown) => !abort.signal.aborted && setState({ kind: 'failed', reason: (error as Error).message }),
    );
    return () => {
      abort.abort();
      if (url) URL.revokeObjectURL(url);
    };
  }, [client, projectDirectory, path]);

  if (state.kind === 'shown') return <img src={state.url} alt={alt} data-project-image={path} />;
  if (state.kind === 'loading') return <span className="muted">{alt || path}…</span>;
  return (
    <span className="muted" role="img" aria-label={alt || path}>
      [{alt || path}: {state.reason}]
    </span>
  );
}
