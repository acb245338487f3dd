import type { AppRoute } from '../../lib/client/appRoute';
import { HeaderIcon, type HeaderIconName } from './HeaderIcon';

/** The header's destinations (UX-4): where each one leads and the routes it is the current page of. */
const VIEW_LINKS: { href: string; label: string; icon: HeaderIconName; routes: readonly AppRoute['kind'][] }[] = [
  { href: '#/', label: 'Sessions', icon: 'sessions', routes: ['sessions', 'output'] },
  { href: '#/files', label: 'Files', icon: 'files', routes: ['files', 'git'] },
  { href: '#/web', label: 'Web', icon: 'web', routes: ['web', 'reader'] },
  { href: '#/devices', label: 'Devices', icon: 'devices', routes: ['devices'] },
  { href: '#/accounts', label: 'Accounts', icon: 'accounts', routes: ['accounts'] },
  { href: '#/settings', label: 'Settings', icon: 'settings', routes: ['settings'] },
];

export function ViewLinks({ route }: { route: AppRoute }) {
  return (
    <nav className="topnav" aria-label="Views">
      {VIEW_LINKS.map((link) => (
        <a key={link.href} href={link.href} aria-current={link.routes.includes(route.kind) ? 'page' : undefined}>
          <HeaderIcon name={link.icon} />
          <span>{link.label}</span>
        </a>
      ))}
    </nav>
  );
}
