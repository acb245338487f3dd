import { FileChunkSchema } from './files';

/**
 * Bytes over plain HTTP on the app origin (an addition to protocol v1): Chromium moves large
 * WebSocket messages several times slower than HTTP bodies, so file chunks (FILE-2) and
 * attachment chunks (ATT-1) may travel as HTTP requests beside the socket. The token goes in
 * `Authorization: Bearer` only, never in a cookie or the URL (SEC-1, SEC-8).
 */
export const HTTP_FILE_CHUNK_PATH = '/api/files/chunk';
export const HTTP_ATTACHMENT_CHUNK_PATH = '/api/attachments/chunk';

/** The chunk's header (a `files.readBinary` answer without `dataBase64`), as JSON. */
export const CHUNK_HEADER = 'x-hbcode-chunk';
/** The version the client pinned from its first chunk (FILE-2): a chunk of another version is refused with 412. */
export const PINNED_VERSION_HEADER = 'x-hbcode-content-version';

export const HttpChunkHeaderSchema = FileChunkSchema.omit({ dataBase64: true });
