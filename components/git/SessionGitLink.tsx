'use client';
import { GitBranch } from 'lucide-react';
import { useEffect, useState } from 'react';
import { routeHash } from '../../lib/client/appRoute';
import { readProjects } from '../../lib/client/readFolder';
import type { RpcClient } from '../../lib/client/rpcClient';

/** The session bar's way to its project's Git view (GIT-9): an icon, so the title keeps the width (UX-4). */
export function SessionGitLink({ client, projectId }: { client: RpcClient | null; projectId: string }) {
  const [directory, setDirectory] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    readProjects(client).then(
      (projects) => live && setDirectory(projects?.find((p) => p.id === projectId)?.directory ?? null),
      // No projects here (offline, never listed): no link, the Files view still leads there.
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, [client, projectId]);
  if (!directory) return null;
  return (
    <a
      className="button-link session-git-link"
      href={routeHash({ kind: 'git', projectDirectory: directory })}
      aria-label="Git"
      title="Git of this project"
    >
      <GitBranch size={18} aria-hidden="true" focusable="false" />
    </a>
  );
}
