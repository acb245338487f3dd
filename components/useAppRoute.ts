'use client';
import { useCallback, useEffect, useRef, useState } from 'react';
import { parentRoute, parseRouteWithProblem, routeHash, type AppRoute } from '../lib/client/appRoute';

/** What the app keeps in `history.state`: the address this entry was opened from. */
const HistoryStateSchemaKey = 'hbFrom';

function openedFrom(): string | null {
  const state: unknown = history.state;
  if (typeof state !== 'object' || state === null || !(HistoryStateSchemaKey in state)) return null;
  const from = (state as Record<string, unknown>)[HistoryStateSchemaKey];
  return typeof from === 'string' ? from : null;
}

export interface AppNavigation {
  route: AppRoute;
  /** Why the address did not open what it named (a malformed link, a session gone), UX-1. */
  problem: string | null;
  /** A new history entry (Back returns here), or with `replace` the same entry changed. */
  navigate: (route: AppRoute, options?: { replace?: boolean }) => void;
  /** The in-app ← buttons: Back when the previous entry is the parent view, else the parent in place. */
  goUp: () => void;
  /** Lands on the session list with a reason, replacing the address that failed. */
  landOnList: (problem: string) => void;
}

/**
 * The current route from the location hash (UX-1). Views open with `pushState`, so Back and
 * Forward walk them; a reload parses the same hash; a bad hash becomes the list with a reason.
 * `active` is false while the app is not paired: the pairing page's hash is left alone.
 */
export function useAppRoute(active = true): AppNavigation {
  const [current, setCurrent] = useState<{ route: AppRoute; problem: string | null }>(() =>
    typeof location === 'undefined'
      ? { route: { kind: 'sessions' }, problem: null }
      : parseRouteWithProblem(location.hash),
  );

  /** The hash the state shows: events about it (the second of a pair, our own pushState) change nothing. */
  const handled = useRef<string | null>(null);

  const landOnList = useCallback((problem: string) => {
    history.replaceState(history.state, '', routeHash({ kind: 'sessions' }));
    handled.current = location.hash;
    setCurrent({ route: { kind: 'sessions' }, problem });
  }, []);

  useEffect(() => {
    // NOTE: until the device is paired the hash is the pairing page's own (`#code=…`), not a route.
    if (!active) return;
    // NOTE: a move to another hash fires both popstate and hashchange; the second must not
    // clear the reason the first one just gave (it would see the list's own hash).
    handled.current = null;
    const onChange = () => {
      if (location.hash === handled.current) return;
      const parsed = parseRouteWithProblem(location.hash);
      if (parsed.problem) landOnList(parsed.problem);
      else setCurrent(parsed);
      handled.current = location.hash;
    };
    onChange();
    window.addEventListener('popstate', onChange);
    window.addEventListener('hashchange', onChange);
    return () => {
      window.removeEventListener('popstate', onChange);
      window.removeEventListener('hashchange', onChange);
    };
  }, [active, landOnList]);

  const navigate = useCallback((next: AppRoute, options?: { replace?: boolean }) => {
    const hash = routeHash(next);
    if (options?.replace) history.replaceState(history.state, '', hash);
    else if (location.hash !== hash) history.pushState({ [HistoryStateSchemaKey]: location.hash || '#/' }, '', hash);
    handled.current = location.hash;
    setCurrent({ route: next, problem: null });
  }, []);

  const goUp = useCallback(() => {
    const parent = routeHash(parentRoute(parseRouteWithProblem(location.hash).route));
    if (openedFrom() === parent) history.back();
    else navigate(parseRouteWithProblem(parent).route, { replace: true });
  }, [navigate]);

  return { route: current.route, problem: current.problem, navigate, goUp, landOnList };
}
