'use client';
import { ArrowLeft, ArrowRight } from 'lucide-react';
import { useEffect, useRef, useState } from 'react';
import { pathUnderPrefix, PreviewBridge, type PreviewHaltReason } from '../lib/client/preview/previewBridge';
import { PreviewHistory } from '../lib/client/preview/previewHistory';
import { newPreviewId } from '../lib/client/preview/previewId';
import { previewResourceReader } from '../lib/client/preview/readPreviewResource';
import type { RpcClient } from '../lib/client/rpcClient';
import type { MethodResult } from '../lib/protocol/methods';

type Opened = MethodResult<'preview.open'>;

interface Props {
  client: RpcClient | null;
  projectDirectory: string;
  path: string;
  /** An http(s) link in the preview: opens the Markdown reader (PRV-6). */
  onOpenWeb: (url: string) => void;
}

/** The app's own words for each way a preview stops (SEC-3: never text from the preview). */
const HALT_TEXT: Record<PreviewHaltReason, string> = {
  stuck: 'The preview stopped responding: a script on the page ran without pause, so the app stopped it.',
  crashed: 'The preview crashed: its page may have run out of memory. The app is fine.',
  host_replaced: 'The preview replaced its own host page, so the app disconnected it.',
  worker_failed: 'The preview could not start: its service worker did not run.',
};

/** The path the address line shows: the preview's own, without a shared origin's prefix. */
function shownPath(originPath: string | undefined, pathPrefix: string | undefined): string | undefined {
  if (originPath === undefined || pathPrefix === undefined) return originPath;
  return pathUnderPrefix(originPath, pathPrefix) ?? originPath;
}

/**
 * An HTML document in its sandbox (PRV-5, PRV-6): the preview origin's host page in a frame,
 * the bridge that feeds it from the runtime, Back/Forward within the preview, Reload, and a
 * refresh whenever a file it read changes on disk. A preview that gets stuck, crashes or loses
 * its host page is removed and can be started again, under a new id and so a new origin and a
 * new process (SEC-9).
 */
export function PreviewPane({ client, projectDirectory, path, onOpenWeb }: Props) {
  const [previewId, setPreviewId] = useState(newPreviewId);
  const [opened, setOpened] = useState<Opened | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [halted, setHalted] = useState<PreviewHaltReason | null>(null);
  const [, setVersion] = useState(0);
  const frame = useRef<HTMLIFrameElement>(null);
  const bridge = useRef<PreviewBridge | null>(null);
  const history = useRef<PreviewHistory | null>(null);
  const clientRef = useRef(client);
  clientRef.current = client;
  const onOpenWebRef = useRef(onOpenWeb);
  onOpenWebRef.current = onOpenWeb;
  const rerender = () => setVersion((v) => v + 1);

  // Bind (again after a reconnect: bindings live as long as the runtime process).
  useEffect(() => {
    if (!client) return;
    let live = true;
    client.call('preview.open', { previewId, projectDirectory, path }).then(
      (answer) => live && (setOpened(answer), setError(null)),
      (e: Error) => live && setError(e.message),
    );
    return () => {
      live = false;
    };
  }, [client, previewId, projectDirectory, path]);

  useEffect(() => () => void clientRef.current?.call('preview.close', { previewId }).catch(() => {}), [previewId]);

  useEffect(() => {
    if (!client) return;
    return client.onNotification('preview.changed', (params) => {
      if (params.previewId === previewId) bridge.current?.reload();
    });
  }, [client, previewId]);

  const hostUrl = opened?.hostUrl;
  useEffect(() => {
    const element = frame.current;
    if (!opened || !element) return;
    history.current ??= new PreviewHistory(opened.documentPath);
    const instance = new PreviewBridge(
      element,
      opened,
      previewResourceReader(() => clientRef.current, previewId),
      {
        onHostReady: () => setError(null),
        onHalted: setHalted,
        onAction: (action) => {
          if (action.kind === 'web') return onOpenWebRef.current(action.url);
          history.current?.push(action.path);
          if (action.navigate) instance.navigate(action.path);
          rerender();
        },
      },
    );
    bridge.current = instance;
    const connect = () => instance.connect();
    element.addEventListener('load', connect);
    return () => {
      element.removeEventListener('load', connect);
      instance.dispose();
      bridge.current = null;
    };
    // The bridge belongs to the host page: a new one only when the preview's origin changes.
  }, [hostUrl]);

  function startAgain() {
    history.current = null;
    setOpened(null);
    setHalted(null);
    setPreviewId(newPreviewId());
  }

  function go(step: 'back' | 'forward') {
    const target = step === 'back' ? history.current?.back() : history.current?.forward();
    if (target) bridge.current?.navigate(target);
    rerender();
  }

  return (
    <section className="preview" aria-label="HTML preview">
      <div className="topbar" style={{ borderBottom: 'none', flexWrap: 'wrap' }}>
        <button onClick={() => go('back')} disabled={!history.current?.canGoBack} aria-label="Back">
          <ArrowLeft size={20} aria-hidden="true" focusable="false" />
        </button>
        <button onClick={() => go('forward')} disabled={!history.current?.canGoForward} aria-label="Forward">
          <ArrowRight size={20} aria-hidden="true" focusable="false" />
        </button>
        <button onClick={() => bridge.current?.reload()} disabled={!opened || halted !== null}>
          Reload
        </button>
        <span className="grow ellipsis mono" title={opened?.root}>
          {/* PRV-6: the document's path, without a shared origin's `/p-<id>` prefix. */}
          {shownPath(history.current?.current, opened?.pathPrefix) ?? path}
        </span>
      </div>
      {opened?.sharedOrigin && (
        <p className="offline-banner" role="note">
          Previews share one origin here: this page is kept away from the app, but not from other previews.
        </p>
      )}
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      {halted && (
        <div className="preview-halted" role="alert">
          <p>{HALT_TEXT[halted]}</p>
          <button onClick={startAgain}>Start again</button>
        </div>
      )}
      {opened && !halted && (
        <iframe
          key={previewId}
          ref={frame}
          className="preview-frame"
          title={`Preview of ${path}`}
          src={opened.hostUrl}
          // NOTE: allow-same-origin keeps the preview origin (not an opaque one) so its worker can
          // control the page (PRV-5); leaving out allow-top-navigation, popups and forms keeps the
          // page (and its inner frame, which inherits these flags) from acting on the app's window.
          sandbox="allow-scripts allow-same-origin"
          referrerPolicy="no-referrer"
          data-preview-id={previewId}
        />
      )}
    </section>
  );
}
