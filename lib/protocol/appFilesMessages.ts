import { z } from 'zod';

/**
 * Page → app service worker (PWA-1, UX-7). The worker installs only the shell; the app's other
 * files are cached on first use. A page the worker does not control yet (the first visit) fetches
 * them past the worker, so it names them here for the worker to keep.
 */
export const FilesUsedMessageSchema = z.object({
  type: z.literal('FILES_USED'),
  paths: z.array(z.string().max(2048)).max(1000),
});
export type FilesUsedMessage = z.infer<typeof FilesUsedMessageSchema>;

/** The page is idle: the worker may fetch, one at a time, the files not cached yet. */
export const WarmFilesMessageSchema = z.object({ type: z.literal('WARM_FILES') });
export type WarmFilesMessage = z.infer<typeof WarmFilesMessageSchema>;

/** One file of a build, as the build names it: its path, a short revision and the SHA-256 of its bytes (RLY-5). */
export interface AppFileEntry {
  url: string;
  revision: string;
  sha256: string;
}
