'use client';
import './files.css';
import { GitBranch } from 'lucide-react';
import { useEffect, useState } from 'react';
import { routeHash, type AppRoute } from '../../lib/client/appRoute';
import { readFolder, readProjects, type FolderAnswer } from '../../lib/client/readFolder';
import type { RpcClient } from '../../lib/client/rpcClient';
import type { Project } from '../../lib/protocol/rows';
import { Breadcrumbs } from './Breadcrumbs';
import { EntryIcon } from './EntryIcon';
import { FileView } from './FileView';
import { PrivateFile, privateRefusalOf, type PrivateRefusal } from './PrivateFile';
import { FolderList } from './FolderList';

interface FilesViewProps {
  client: RpcClient | null;
  projectDirectory: string | null;
  path: string;
  navigate: (route: AppRoute) => void;
}

/** The file browser at `#/files?dir=&path=` (FILE-4): projects, then folders read one at a time. */
export function FilesView({ client, projectDirectory, path, navigate }: FilesViewProps) {
  return (
    <div className="scroll files">
      {projectDirectory === null ? (
        <ProjectList client={client} />
      ) : (
        <>
          <div className="files-bar-top">
            <Breadcrumbs projectDirectory={projectDirectory} path={path} />
            <a className="files-git-link" href={routeHash({ kind: 'git', projectDirectory })}>
              <GitBranch size={16} aria-hidden="true" focusable="false" /> Git
            </a>
          </div>
          <FolderOrFile client={client} projectDirectory={projectDirectory} path={path} navigate={navigate} />
        </>
      )}
    </div>
  );
}

function ProjectList({ client }: { client: RpcClient | null }) {
  const [projects, setProjects] = useState<Project[] | null | undefined>(undefined);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    readProjects(client).then(setProjects, (e: unknown) => setError((e as Error).message));
  }, [client]);
  if (error)
    return (
      <p className="error" role="alert">
        {error}
      </p>
    );
  if (projects === undefined) return <p className="muted">Loading projects…</p>;
  if (projects === null || projects.length === 0)
    return <p className="muted">No projects yet. Connect to the computer to browse its files.</p>;
  return (
    <ul className="folder-list" aria-label="Projects">
      {projects.map((project) => (
        <li key={project.id}>
          <a href={routeHash({ kind: 'files', projectDirectory: project.directory, path: '' })}>
            <EntryIcon kind="project" name={project.name} />
            <span className="grow ellipsis">{project.name}</span>
            <span className="muted ellipsis">{project.directory}</span>
          </a>
        </li>
      ))}
    </ul>
  );
}

function FolderOrFile({
  client,
  projectDirectory,
  path,
  navigate,
}: {
  client: RpcClient | null;
  projectDirectory: string;
  path: string;
  navigate: (route: AppRoute) => void;
}) {
  const [answer, setAnswer] = useState<FolderAnswer | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [refusal, setRefusal] = useState<PrivateRefusal | null>(null);
  useEffect(() => {
    let live = true;
    setAnswer(null);
    setError(null);
    setRefusal(null);
    readFolder(client, projectDirectory, path).then(
      (found) => live && setAnswer(found),
      (e: unknown) => {
        if (!live) return;
        const kept = privateRefusalOf(e);
        if (kept) setRefusal(kept);
        else setError((e as Error).message);
      },
    );
    return () => {
      live = false;
    };
  }, [client, projectDirectory, path]);
  if (error)
    return (
      <p className="error" role="alert">
        {error}
      </p>
    );
  if (refusal) return <PrivateFile name={path.split('/').pop() ?? path} {...refusal} />;
  if (!answer) return <p className="muted">Loading…</p>;
  // An unknown path while offline may be a file this device saved: FileView finds out.
  if (answer.kind !== 'folder')
    return <FileView client={client} projectDirectory={projectDirectory} path={path} navigate={navigate} />;
  return (
    <>
      {answer.fromCache && <p className="muted">Showing this folder as this device saved it.</p>}
      <FolderList projectDirectory={projectDirectory} path={path} entries={answer.entries} />
    </>
  );
}
