import { describe, expect, it } from 'vitest';
import { isHiddenSecretName, pathHasHiddenSecret } from '../../../../server/runtime/files/hiddenSecrets';

// FILE-3, SEC-6: hidden-secret names match as a case-insensitive file system compares them, which
// folds more than lower-casing does: on such a volume `.ſsh` (long s) and `.ßh` open `.ssh`.
describe('FILE-3 hidden-secret names ignore case the way case-insensitive file systems do', () => {
  it('FILE-3 every case spelling of a hidden name is hidden, also through letters that fold to ASCII', () => {
    const spellings = ['.env', '.ENV', '.Env.local', '.GIT', '.Git', '.SSH', '.\u017Fsh', '.\u00DFh', '.\u212Aube', '.NPMRC', '.env.PRODUCTION'];
    expect(spellings.filter((name) => !isHiddenSecretName(name))).toEqual([]);
    expect(pathHasHiddenSecret(['docs', '.\u017Fsh', 'id_ed25519'])).toBe(true);
  });

  it('FILE-3 names that only resemble a hidden one stay visible', () => {
    const visible = ['.gitignore', '.github', '.environment', 'env', '.envrc', 'git', '.sshd_config', '.editorconfig'];
    expect(visible.filter((name) => isHiddenSecretName(name))).toEqual([]);
  });
});
