'use client';
import type { ReactNode } from 'react';
import { routeHash, type AppRoute } from '../../lib/client/appRoute';
import { opensAsPreview, resolveProjectLink } from '../../lib/client/files/projectLinks';
import type { RpcClient } from '../../lib/client/rpcClient';
import { LazyMarkdownView } from '../lazy/LazyMarkdownView';
import { ProjectImage } from './ProjectImage';

interface ProjectMarkdownProps {
  client: RpcClient | null;
  projectDirectory: string;
  /** The Markdown file's own path in the project: its relative links start from its folder. */
  path: string;
  markdown: string;
  navigate: (route: AppRoute) => void;
}

/**
 * A project's Markdown file (FILE-4): relative links open the file in the app (an HTML file opens
 * its preview), relative images show the project's image, and links leaving the project are
 * refused where they stand (FILE-3). http(s) links stay external (SEC-3).
 */
export function ProjectMarkdown({ client, projectDirectory, path, markdown, navigate }: ProjectMarkdownProps) {
  const renderLink = (href: string, children: ReactNode) => {
    const link = resolveProjectLink(path, href);
    if (link.kind === 'anchor') return <span>{children}</span>;
    if (link.kind === 'refused' || link.kind === 'external') {
      return (
        <span data-refused-link={href}>
          <span className="link-refused">{children}</span>{' '}
          <span className="muted">({link.kind === 'refused' ? link.reason : 'not a project file'})</span>
        </span>
      );
    }
    const route: AppRoute = opensAsPreview(link.path)
      ? { kind: 'preview', projectDirectory, path: link.path }
      : { kind: 'files', projectDirectory, path: link.path };
    return (
      <a
        href={routeHash(route)}
        data-project-link={link.path}
        onClick={(event) => {
          event.preventDefault();
          navigate(route);
        }}
      >
        {children}
      </a>
    );
  };
  const renderImage = (src: string, alt: string) => {
    const image = resolveProjectLink(path, src);
    if (image.kind !== 'file') {
      return (
        <span className="link-refused" data-refused-image={src}>
          [{alt || src}: {image.kind === 'refused' ? image.reason : 'not a project file'}]
        </span>
      );
    }
    return <ProjectImage client={client} projectDirectory={projectDirectory} path={image.path} alt={alt} />;
  };
  return <LazyMarkdownView markdown={markdown} renderRelativeLink={renderLink} renderRelativeImage={renderImage} />;
}
