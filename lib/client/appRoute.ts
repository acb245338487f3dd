/**
 * Where the app is, kept in the location hash so a view can be linked, reloaded and opened
 * offline from the static shell (no server routes: the app is a static export).
 *
 *   #/files?dir=D&path=P     the file browser (FILE-4)
 *   #/preview?dir=D&path=P   an HTML preview (PRV-6)
 *   #/read?url=U             a web page as Markdown (MD-1)
 *   #/devices                pairing, devices and notifications (DEV-1, PUSH-1)
 *   #/?session=S&approval=A  the sessions, opening S (a tapped notification, PUSH-1)
 *   #/accounts               agent accounts and their plan limits (ACC-1, ACC-7)
 *   #/settings               installing the app and its storage on this device (PWA-1, PWA-3)
 *   anything else            the sessions
 */
export type AppRoute =
  | { kind: 'sessions'; sessionId?: string; approvalId?: string }
  | { kind: 'devices' }
  | { kind: 'files'; projectDirectory: string | null; path: string }
  | { kind: 'preview'; projectDirectory: string; path: string }
  | { kind: 'reader'; url: string }
  | { kind: 'accounts' }
  | { kind: 'settings' };

export function parseRoute(hash: string): AppRoute {
  const [name, query = ''] = hash.replace(/^#\/?/, '').split('?', 2) as [string, string?];
  const params = new URLSearchParams(query);
  const dir = params.get('dir');
  const path = params.get('path') ?? '';
  switch (name) {
    case 'files':
      return { kind: 'files', projectDirectory: dir, path };
    case 'preview':
      return dir && path ? { kind: 'preview', projectDirectory: dir, path } : { kind: 'sessions' };
    case 'accounts':
      return { kind: 'accounts' };
    case 'settings':
      return { kind: 'settings' };
    case 'read': {
      const url = params.get('url');
      return url ? { kind: 'reader', url } : { kind: 'sessions' };
    }
    case 'devices':
      return { kind: 'devices' };
    default: {
      const sessionId = params.get('session');
      const approvalId = params.get('approval');
      if (!sessionId) return { kind: 'sessions' };
      return approvalId ? { kind: 'sessions', sessionId, approvalId } : { kind: 'sessions', sessionId };
    }
  }
}

export function routeHash(route: AppRoute): string {
  const query = (entries: Record<string, string | null>) => {
    const params = new URLSearchParams();
    for (const [key, value] of Object.entries(entries)) if (value !== null) params.set(key, value);
    const text = params.toString();
    return text ? `?${text}` : '';
  };
  switch (route.kind) {
    case 'sessions':
      return `#/${query({ session: route.sessionId ?? null, approval: route.approvalId ?? null })}`;
    case 'devices':
      return '#/devices';
    case 'files':
      return `#/files${query({ dir: route.projectDirectory, path: route.path || null })}`;
    case 'preview':
      return `#/preview${query({ dir: route.projectDirectory, path: route.path })}`;
    case 'reader':
      return `#/read${query({ url: route.url })}`;
    case 'accounts':
      return '#/accounts';
    case 'settings':
      return '#/settings';
  }
}
