import {
  Download,
  FolderOpen,
  Globe,
  MessagesSquare,
  MonitorSmartphone,
  Settings,
  UserRound,
  type LucideIcon,
} from 'lucide-react';

/** The header's destinations as Lucide outline icons; on a phone they sit above each label (UX-4). */
const ICONS = {
  sessions: MessagesSquare,
  files: FolderOpen,
  web: Globe,
  devices: MonitorSmartphone,
  accounts: UserRound,
  settings: Settings,
  install: Download,
} as const satisfies Record<string, LucideIcon>;

export type HeaderIconName = keyof typeof ICONS;

export function HeaderIcon({ name }: { name: HeaderIconName }) {
  const Icon = ICONS[name];
  return <Icon className="header-icon" size={20} strokeWidth={1.8} aria-hidden="true" focusable="false" />;
}
