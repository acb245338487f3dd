// The app's saved-record readers and writers, bundled together for one blank page (PWA-8).
export { loadPairing, savePairing } from '../../lib/client/appDb';
export { outputCacheBytes, readCachedOutputPage, saveOutputPage } from '../../lib/client/output/outputCache';
export { readSessionsSnapshot, saveSessionsSnapshot } from '../../lib/client/snapshotCache';
export { enqueueMessage, sessionOutbox } from '../../lib/client/outbox';
export { listSavedReaderPages, saveReaderPage } from '../../lib/client/readerCache';
