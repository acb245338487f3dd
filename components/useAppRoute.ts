'use client';
import { useCallback, useEffect, useState } from 'react';
import { parseRoute, routeHash, type AppRoute } from '../lib/client/appRoute';

/** The current route from the location hash; `navigate` pushes a history entry so Back works. */
export function useAppRoute(): [AppRoute, (route: AppRoute) => void] {
  const [route, setRoute] = useState<AppRoute>(() => (typeof location === 'undefined' ? { kind: 'sessions' } : parseRoute(location.hash)));
  useEffect(() => {
    const onChange = () => setRoute(parseRoute(location.hash));
    onChange();
    window.addEventListener('hashchange', onChange);
    return () => window.removeEventListener('hashchange', onChange);
  }, []);
  const navigate = useCallback((next: AppRoute) => {
    const hash = routeHash(next);
    if (location.hash !== hash) location.hash = hash;
    setRoute(next);
  }, []);
  return [route, navigate];
}
