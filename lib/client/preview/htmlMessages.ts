import { decodePreviewPath } from '../../protocol/previewPath';
import type { HtmlMessage } from '../../protocol/previewBridge';

export type HtmlMessageAction =
  { kind: 'preview'; path: string; navigate: boolean } | { kind: 'web'; url: string } | { kind: 'ignore' };

/**
 * PRV-6: what the app does with a message from the previewed page, already known to come from
 * the expected frame and origin. A page of this preview (same origin, under its path prefix,
 * passing the PRV-2 syntax check) enters the preview history; an http(s) page opens in the
 * Markdown reader; anything else is ignored. `ready` only records where the frame is now.
 */
export function decideHtmlMessage(
  message: HtmlMessage,
  preview: { origin: string; pathPrefix: string },
): HtmlMessageAction {
  let url: URL;
  try {
    url = new URL(message.href);
  } catch {
    return { kind: 'ignore' };
  }
  if (url.origin === preview.origin) {
    // `//x` would read as another host wherever the path is used as a URL.
    if (
      !url.pathname.startsWith(preview.pathPrefix) ||
      url.pathname.startsWith('//') ||
      !decodePreviewPath(url.pathname)
    )
      return { kind: 'ignore' };
    return { kind: 'preview', path: url.pathname + url.search, navigate: message.type === 'hbcode.html.open' };
  }
  if (message.type === 'hbcode.html.open' && (url.protocol === 'http:' || url.protocol === 'https:'))
    return { kind: 'web', url: url.href };
  return { kind: 'ignore' };
}
