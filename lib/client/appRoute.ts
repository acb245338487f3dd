import { z } from 'zod';

/**
 * Where the app is, kept in the location hash so a view can be linked, reloaded and opened
 * offline from the static shell (no server routes: the app is a static export), UX-1.
 *
 *   #/?session=S&approval=A                      the sessions, with session S open (PUSH-1 links too)
 *   #/output?session=S&run=R&command=C&at=N      a command's output viewer at byte N (PWA-2)
 *   #/files?dir=D&path=P                         the file browser (FILE-4)
 *   #/git?dir=D                                  the project's Git view (GIT-9)
 *   #/preview?dir=D&path=P                       an HTML preview (PRV-6)
 *   #/read?url=U                                 a web page as Markdown (MD-1)
 *   #/web                                        open an address in the reader; the pages saved on this device (MD-1, PWA-3)
 *   #/devices                                    pairing, devices and notifications (DEV-1, PUSH-1)
 *   #/accounts                                   agent accounts and their plan limits (ACC-1, ACC-7)
 *   #/settings                                   installing the app and its storage on this device (PWA-1, PWA-3)
 *
 * Every address is parsed with a strict schema: an unknown view, an unknown or oversized
 * parameter (a `token`, say: a route never carries one) lands on the session list with a notice.
 */
export type AppRoute =
  | { kind: 'sessions'; sessionId?: string; approvalId?: string }
  | { kind: 'output'; sessionId: string; runId: string; commandId: string; at: number | null }
  | { kind: 'devices' }
  | { kind: 'files'; projectDirectory: string | null; path: string }
  | { kind: 'git'; projectDirectory: string }
  | { kind: 'preview'; projectDirectory: string; path: string }
  | { kind: 'reader'; url: string }
  | { kind: 'web' }
  | { kind: 'accounts' }
  | { kind: 'settings' };

/** A parsed address, and why it was not the view it named when it was not. */
export interface ParsedRoute {
  route: AppRoute;
  problem: string | null;
}

const Id = z.string().min(1).max(200);
const FsPath = z.string().max(4096);
const ByteOffset = z
  .string()
  .regex(/^\d{1,16}$/)
  .transform(Number)
  .pipe(z.number().int().min(0).max(Number.MAX_SAFE_INTEGER));
const WebUrl = z
  .string()
  .max(8192)
  .refine((value) => URL.canParse(value) && /^https?:$/.test(new URL(value).protocol), 'not an http(s) address');
const NoParams = z.object({}).strict();

/** Each view's query parameters, strict: anything unexpected is refused. */
const VIEWS = {
  '': z.object({ session: Id.optional(), approval: Id.optional() }).strict(),
  output: z.object({ session: Id, run: Id, command: Id, at: ByteOffset.optional() }).strict(),
  files: z.object({ dir: FsPath.min(1).optional(), path: FsPath.optional() }).strict(),
  git: z.object({ dir: FsPath.min(1) }).strict(),
  preview: z.object({ dir: FsPath.min(1), path: FsPath.min(1) }).strict(),
  read: z.object({ url: WebUrl }).strict(),
  web: NoParams,
  devices: NoParams,
  accounts: NoParams,
  settings: NoParams,
} as const;

type ViewName = keyof typeof VIEWS;
const isViewName = (name: string): name is ViewName => Object.hasOwn(VIEWS, name);
const MAX_HASH_LENGTH = 16 * 1024;
const LIST: AppRoute = { kind: 'sessions' };

function toRoute(name: ViewName, params: Record<string, string>): AppRoute {
  switch (name) {
    case '': {
      const { session, approval } = VIEWS[''].parse(params);
      if (!session) return LIST;
      return approval
        ? { kind: 'sessions', sessionId: session, approvalId: approval }
        : { kind: 'sessions', sessionId: session };
    }
    case 'output': {
      const p = VIEWS.output.parse(params);
      return { kind: 'output', sessionId: p.session, runId: p.run, commandId: p.command, at: p.at ?? null };
    }
    case 'files': {
      const p = VIEWS.files.parse(params);
      return { kind: 'files', projectDirectory: p.dir ?? null, path: p.path ?? '' };
    }
    case 'git':
      return { kind: 'git', projectDirectory: VIEWS.git.parse(params).dir };
    case 'preview': {
      const p = VIEWS.preview.parse(params);
      return { kind: 'preview', projectDirectory: p.dir, path: p.path };
    }
    case 'read':
      return { kind: 'reader', url: VIEWS.read.parse(params).url };
    case 'web':
      VIEWS.web.parse(params);
      return { kind: 'web' };
    case 'devices':
      VIEWS.devices.parse(params);
      return { kind: 'devices' };
    case 'accounts':
      VIEWS.accounts.parse(params);
      return { kind: 'accounts' };
    case 'settings':
      VIEWS.settings.parse(params);
      return { kind: 'settings' };
  }
}

/** The route of a location hash; a malformed or hostile one is the list, with the reason. */
export function parseRouteWithProblem(hash: string): ParsedRoute {
  const refused = { route: LIST, problem: 'That link does not open anything in this app, so here are your sessions.' };
  if (hash.length > MAX_HASH_LENGTH) return refused;
  const body = hash.replace(/^#\/?/, '');
  const split = body.indexOf('?');
  const name = split < 0 ? body : body.slice(0, split);
  const query = split < 0 ? '' : body.slice(split + 1);
  if (!isViewName(name)) return name === '' ? { route: LIST, problem: null } : refused;
  const params: Record<string, string> = {};
  for (const [key, value] of new URLSearchParams(query)) {
    // A repeated parameter is ambiguous: refuse it rather than pick one.
    if (Object.hasOwn(params, key)) return refused;
    params[key] = value;
  }
  try {
    return { route: toRoute(name, params), problem: null };
  } catch (error) {
    if (error instanceof z.ZodError) return refused;
    throw error;
  }
}

export function parseRoute(hash: string): AppRoute {
  return parseRouteWithProblem(hash).route;
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
    case 'output':
      return `#/output${query({ session: route.sessionId, run: route.runId, command: route.commandId, at: route.at === null ? null : String(route.at) })}`;
    case 'devices':
      return '#/devices';
    case 'files':
      return `#/files${query({ dir: route.projectDirectory, path: route.path || null })}`;
    case 'git':
      return `#/git${query({ dir: route.projectDirectory })}`;
    case 'preview':
      return `#/preview${query({ dir: route.projectDirectory, path: route.path })}`;
    case 'reader':
      return `#/read${query({ url: route.url })}`;
    case 'web':
      return '#/web';
    case 'accounts':
      return '#/accounts';
    case 'settings':
      return '#/settings';
  }
}

/** The view Back-arrow buttons lead to: the output's session, the session's list. */
export function parentRoute(route: AppRoute): AppRoute {
  if (route.kind === 'output') return { kind: 'sessions', sessionId: route.sessionId };
  return LIST;
}
