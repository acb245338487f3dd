import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root, found from this file's place in it. */
export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const MIGRATIONS_DIR = path.join(REPO_ROOT, 'migrations');
