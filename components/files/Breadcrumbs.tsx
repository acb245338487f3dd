'use client';
import { routeHash } from '../../lib/client/appRoute';

/** Projects › project › folder › … › name, each a link (FILE-4). */
export function Breadcrumbs({ projectDirectory, path }: { projectDirectory: string; path: string }) {
  const segments = path.split('/').filter(Boolean);
  const projectName = projectDirectory.split(/[\\/]/).filter(Boolean).pop() ?? projectDirectory;
  return (
    <nav className="breadcrumbs" aria-label="Folder path">
      <a href={routeHash({ kind: 'files', projectDirectory: null, path: '' })}>Projects</a>
      <span aria-hidden="true">›</span>
      <a
        href={routeHash({ kind: 'files', projectDirectory, path: '' })}
        aria-current={segments.length === 0 ? 'page' : undefined}
      >
        {projectName}
      </a>
      {segments.map((segment, i) => (
        <span key={i} className="crumb">
          <span aria-hidden="true">›</span>
          <a
            href={routeHash({ kind: 'files', projectDirectory, path: segments.slice(0, i + 1).join('/') })}
            aria-current={i === segments.length - 1 ? 'page' : undefined}
          >
            {segment}
          </a>
        </span>
      ))}
    </nav>
  );
}
