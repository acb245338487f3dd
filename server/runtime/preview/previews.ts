import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { FILE_CHUNK_BYTES } from '../../../lib/protocol/files';
import { conflict, notFound } from '../errors';
import { withVerifiedOpen } from '../files/openVerified';
import { readChunkFromOpenFile, type ChunkRead } from '../files/readChunk';
import type { SecretFiles } from '../files/secretFiles';
import { canonicalDocument } from './previewDocument';
import { PreviewWatcher } from './previewWatcher';
import { resolvePreviewResource, resourceServable, servableFolder } from './resourcePath';
import { chooseResourceRoot, type ResourceRoot } from './resourceRoot';

export interface PreviewBinding {
  previewId: string;
  /** Canonical path of the document. */
  documentPath: string;
  resourceRoot: ResourceRoot;
}

/** A preview resource's chunk: its header, and its bytes in the buffer `allocate` handed out. */
interface ReadChunk {
  chunk: Omit<ChunkRead, 'bytes'>;
  bytes: Buffer;
}

export type PreviewResource = { status: 404 } | ({ status: 200 } & ReadChunk);

const NOT_SERVED: PreviewResource = { status: 404 };

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
    /** The secrets policy (FILE-6), the same one `files.*` asks. */
    private readonly secrets: SecretFiles,
    /** SEC-9: the largest piece one read answers (HBCODE_PREVIEW_CHUNK_BYTES); FILE_CHUNK_BYTES by default. */
    private readonly chunkBytes = FILE_CHUNK_BYTES,
  ) {}

  open(previewId: string, projectDirectory: string, requestPath: string): PreviewBinding {
    if (!this.projectDirectories().includes(projectDirectory)) throw notFound('No such project.', { projectDirectory });
    const documentPath = canonicalDocument(projectDirectory, requestPath, this.secrets);
    const existing = this.bindings.get(previewId);
    if (existing) {
      if (existing.documentPath !== documentPath)
        throw conflict('This preview id is already bound to another document.', { previewId });
      return existing;
    }
    const resourceRoot = chooseResourceRoot(projectDirectory, documentPath, realHome(), this.secrets);
    const watcher = new PreviewWatcher(resourceRoot.root, (changed) => this.onChange(previewId, changed));
    const binding: LiveBinding = { previewId, documentPath, resourceRoot, watcher };
    this.bindings.set(previewId, binding);
    return binding;
  }

  readResource(
    previewId: string,
    rawPath: string,
    offset: number,
    allocate: (n: number) => Buffer = Buffer.allocUnsafe,
  ): PreviewResource {
    const binding = this.bindings.get(previewId);
    if (!binding) throw notFound('No such preview. Open it again.', { previewId });
    const file = resolvePreviewResource(binding.resourceRoot, rawPath, this.secrets);
    if (!file) {
      // A page that asks for a file not there yet refreshes when it appears.
      const folder = servableFolder(binding.resourceRoot, rawPath, this.secrets);
      if (folder) binding.watcher.watchFolder(folder);
      return NOT_SERVED;
    }
    binding.watcher.watchFolder(path.dirname(file));
    // SEC-7: the same open-and-check path as files.readBinary, with the preview's own rules.
    return withVerifiedOpen<PreviewResource>(
      file,
      (real) => resourceServable(binding.resourceRoot, real, this.secrets),
      ({ fd, stat, realPath }) => {
        if (!stat.isFile() || this.secrets.refusalOfOpenFile(fd, stat)) return NOT_SERVED;
        const { bytes, ...chunk } = readChunkFromOpenFile(fd, stat, realPath, offset, allocate, this.chunkBytes);
        return { status: 200, chunk, bytes };
      },
      () => NOT_SERVED,
    );
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
