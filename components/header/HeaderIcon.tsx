/** Outline glyphs for the header's destinations; on a phone they sit above each label (UX-4). */
const PATHS = {
  sessions: 'M4 5h16v11H8l-4 4z',
  files: 'M4 4h6l2 3h8v13H4z',
  devices: 'M7 3h10v18H7z M11 18h2',
  accounts: 'M12 12a4 4 0 1 0 0-8 4 4 0 0 0 0 8z M4 21c0-4 4-6 8-6s8 2 8 6',
  signOut: 'M10 4H5v16h5 M14 8l4 4-4 4 M18 12H9',
} as const;

export type HeaderIconName = keyof typeof PATHS;

export function HeaderIcon({ name }: { name: HeaderIconName }) {
  return (
    <svg className="header-icon" viewBox="0 0 24 24" width="20" height="20" aria-hidden="true" focusable="false">
      <path d={PATHS[name]} fill="none" stroke="currentColor" strokeWidth="1.8" strokeLinecap="round" strokeLinejoin="round" />
    </svg>
  );
}
