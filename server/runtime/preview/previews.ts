import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { decodePreviewPath } from '../../../lib/protocol/previewPath';
import { conflict, invalidParams, notFound } from '../errors';
import { readFileChunk, type ReadChunk } from './fileChunk';
import { PreviewWatcher } from './previewWatcher';
import { resolvePreviewResource } from './resourcePath';
import { chooseResourceRoot, isInside, type ResourceRoot } from './resourceRoot';

export interface PreviewBinding {
  previewId: string;
  /** Canonical path of the document. */
  documentPath: string;
  resourceRoot: ResourceRoot;
}

export type PreviewResource = { status: 404 } | ({ status: 200 } & ReadChunk);

interface LiveBinding extends PreviewBinding {
  watcher: PreviewWatcher;
}

/**
 * HTML previews (PRV-1, PRV-2): binds caller-made ids to documents and answers their resources.
 * Bindings live in memory for the runtime's lifetime: after a restart the app binds its id again
 * (it knows the document), so nothing on disk has to outlive a preview.
 */
export class Previews {
  private readonly bindings = new Map<string, LiveBinding>();

  constructor(
    private readonly projectDirectories: () => readonly string[],
    private readonly onChange: (previewId: string, path: string) => void,
  ) {}

  open(previewId: string, projectDirectory: string, requestPath: string): PreviewBinding {
    if (!this.projectDirectories().includes(projectDirectory)) throw notFound('No such project.', { projectDirectory });
    const documentPath = canonicalDocument(projectDirectory, requestPath);
    const existing = this.bindings.get(previewId);
    if (existing) {
      if (existing.documentPath !== documentPath) throw conflict('This preview id is already bound to another document.', { previewId });
      return existing;
    }
    const resourceRoot = chooseResourceRoot(projectDirectory, documentPath, realHome());
    const watcher = new PreviewWatcher(resourceRoot.root, (changed) => this.onChange(previewId, changed));
    const binding: LiveBinding = { previewId, documentPath, resourceRoot, watcher };
    this.bindings.set(previewId, binding);
    return binding;
  }

  readResource(previewId: string, rawPath: string, offset: number, allocate?: (n: number) => Buffer): PreviewResource {
    const binding = this.bindings.get(previewId);
    if (!binding) throw notFound('No such preview. Open it again.', { previewId });
    const file = resolvePreviewResource(binding.resourceRoot, rawPath);
    if (!file) {
      this.watchRequestedFolder(binding, rawPath);
      return { status: 404 };
    }
    binding.watcher.watchFolder(path.dirname(file));
    try {
      return { status: 200, ...readFileChunk(file, offset, allocate) };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { status: 404 };
      throw error;
    }
  }

  /** A page that asks for a file not there yet refreshes when it appears. */
  private watchRequestedFolder(binding: LiveBinding, rawPath: string): void {
    const segments = decodePreviewPath(rawPath);
    if (!segments || binding.resourceRoot.documentOnly) return;
    try {
      const folder = fs.realpathSync(path.join(binding.resourceRoot.root, ...segments.slice(0, -1)));
      if (isInside(binding.resourceRoot.root, folder)) binding.watcher.watchFolder(folder);
    } catch {
      // The folder is not there either.
    }
  }

  close(previewId: string): void {
    this.bindings.get(previewId)?.watcher.close();
    this.bindings.delete(previewId);
  }

  closeAll(): void {
    for (const id of [...this.bindings.keys()]) this.close(id);
  }
}

function realHome(): string {
  const home = os.homedir();
  try {
    return fs.realpathSync(home);
  } catch {
    return path.resolve(home);
  }
}

/** The document as a canonical file inside its project (FILE-3, SEC-2). */
function canonicalDocument(projectDirectory: string, requestPath: string): string {
  let real: string;
  try {
    real = fs.realpathSync(path.resolve(projectDirectory, requestPath.replace(/^\/+/, '')));
  } catch {
    throw notFound('No such document.', { path: requestPath });
  }
  if (!isInside(projectDirectory, real)) throw invalidParams('The document is outside the project folder.', { path: requestPath });
  if (!fs.statSync(real).isFile()) throw invalidParams('Only a file can be previewed.', { path: requestPath });
  return real;
}
