/**
 * Asks the browser to keep this origin's storage under pressure (PWA-6): once, after the user
 * has saved something to read offline (an output page, a file), never on load, so a browser that
 * shows a prompt shows it for a reason the user just gave.
 */
let asked: Promise<boolean> | null = null;

export function requestPersistenceAfterSave(): Promise<boolean> {
  asked ??= (async () => {
    const storage = typeof navigator === 'undefined' ? undefined : navigator.storage;
    if (!storage?.persist || !storage.persisted) return false;
    if (await storage.persisted()) return true;
    return storage.persist();
  })().catch((error: unknown) => {
    console.warn('Could not ask to keep what this device saved', error);
    return false;
  });
  return asked;
}
