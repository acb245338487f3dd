/**
 * The credential files and folders of developer tools that no read path serves (FILE-6), by the
 * type a user opts in with (`--allow-secret-files gitconfig,npmrc`). One table, kept here on
 * purpose: the npm packages that list "sensitive files" are made to stop commits (they refuse
 * every `.log`, `settings.py` and `.bashrc`, and miss gh, Docker, kube, the cloud CLIs and the
 * coding agents' sign-ins), so they would hide ordinary project files and serve real tokens.
 *
 * A pattern is a run of names, `/`-separated, that may appear anywhere on a canonical path: the
 * file itself or any folder above it. `.ssh` refuses the folder and all under it; `.codex/auth.json`
 * refuses only that file of a Codex home. `*` inside a name matches any characters. Names compare
 * the way case-insensitive volumes do (see `foldCase`).
 */
export interface SecretFileType {
  /** The opt-in name, as `--allow-secret-files` takes it. */
  type: string;
  /** What such a file holds, in plain words: the refusal says it. */
  holds: string;
  patterns: readonly string[];
}

export const SECRET_FILE_TYPES: readonly SecretFileType[] = [
  { type: 'env', holds: 'environment settings, where apps keep their keys', patterns: ['.env', '.env.*'] },
  { type: 'git', holds: "Git's internals, whose config can carry tokens in remote addresses", patterns: ['.git'] },
  {
    type: 'git-credentials',
    holds: "passwords Git's credential store saved",
    patterns: ['.git-credentials', '.config/git/credentials'],
  },
  {
    type: 'gitconfig',
    holds: 'your Git settings, which can carry tokens and credential helpers',
    patterns: ['.gitconfig', '.config/git/config'],
  },
  { type: 'gh', holds: "the GitHub CLI's sign-in tokens", patterns: ['.config/gh/hosts.yml', '.config/hub'] },
  { type: 'glab', holds: "the GitLab CLI's sign-in tokens", patterns: ['.config/glab-cli/config.yml'] },
  { type: 'npmrc', holds: "npm's registry tokens", patterns: ['.npmrc'] },
  {
    type: 'pip',
    holds: 'Python package index passwords (pip, twine, Poetry)',
    patterns: ['.pypirc', 'pip.conf', 'pip.ini', '.config/pypoetry/auth.toml'],
  },
  { type: 'cargo', holds: "Cargo's crates.io token", patterns: ['.cargo/credentials', '.cargo/credentials.toml'] },
  { type: 'gem', holds: "RubyGems' API key", patterns: ['.gem/credentials', '.local/share/gem/credentials'] },
  {
    type: 'docker',
    holds: 'container registry logins (Docker, Podman)',
    patterns: ['.docker', '.config/containers/auth.json'],
  },
  { type: 'kube', holds: 'Kubernetes cluster credentials', patterns: ['.kube', 'kubeconfig'] },
  { type: 'aws', holds: 'AWS access keys', patterns: ['.aws'] },
  { type: 'gcloud', holds: 'Google Cloud sign-ins', patterns: ['.config/gcloud'] },
  { type: 'azure', holds: 'Azure CLI sign-ins', patterns: ['.azure'] },
  {
    type: 'ssh',
    holds: 'SSH keys',
    patterns: ['.ssh', 'id_rsa', 'id_dsa', 'id_ecdsa', 'id_ed25519', 'id_ecdsa_sk', 'id_ed25519_sk', '*.ppk'],
  },
  { type: 'gpg', holds: 'GnuPG keys and the pass password store', patterns: ['.gnupg', '.password-store'] },
  { type: 'netrc', holds: 'saved logins for FTP, curl and Heroku', patterns: ['.netrc', '_netrc'] },
  { type: 'pgpass', holds: 'PostgreSQL passwords', patterns: ['.pgpass'] },
  { type: 'mysql', holds: 'MySQL passwords', patterns: ['.my.cnf', '.mylogin.cnf'] },
  { type: 'codex', holds: "Codex's sign-in", patterns: ['.codex/auth.json'] },
  { type: 'claude', holds: "Claude Code's sign-in and API key", patterns: ['.credentials.json', '.claude.json'] },
  {
    type: 'history',
    holds: 'shell and console histories, where typed passwords and tokens stay',
    patterns: [
      '.bash_history',
      '.zsh_history',
      '.zhistory',
      '.sh_history',
      '.history',
      '.local/share/fish/fish_history',
      '.python_history',
      '.node_repl_history',
      '.psql_history',
      '.mysql_history',
      '.sqlite_history',
      '.rediscli_history',
      '.irb_history',
    ],
  },
  { type: 'terraform', holds: "Terraform's registry tokens", patterns: ['.terraform.d/credentials.tfrc.json'] },
  { type: 'vault', holds: "HashiCorp Vault's token", patterns: ['.vault-token'] },
  { type: 's3cmd', holds: "s3cmd's access keys", patterns: ['.s3cfg'] },
  { type: 'maven', holds: 'Maven repository passwords', patterns: ['.m2/settings.xml', '.m2/settings-security.xml'] },
  { type: 'gradle', holds: 'Gradle repository and signing passwords', patterns: ['.gradle/gradle.properties'] },
  { type: 'htpasswd', holds: 'web server passwords', patterns: ['.htpasswd'] },
  {
    type: 'keyring',
    holds: 'password managers and keyrings',
    patterns: ['.local/share/keyrings', '*.kdbx', '*.keychain', '*.keychain-db'],
  },
  {
    type: 'keystore',
    holds: 'key stores with private keys (PKCS #12, Java)',
    patterns: ['*.p12', '*.pfx', '*.jks', '*.keystore'],
  },
];

/** Files refused by what they are rather than by name (FILE-6), opted in the same way. */
export const PRIVATE_KEY_TYPE = 'private-key';
export const HARD_LINK_TYPE = 'hardlink';

export const SECRET_TYPE_NAMES: readonly string[] = [
  ...SECRET_FILE_TYPES.map((t) => t.type),
  PRIVATE_KEY_TYPE,
  HARD_LINK_TYPE,
];

/** The command-line flag that opts types in; refusals name it. */
export const ALLOW_SECRET_FILES_FLAG = '--allow-secret-files';

/**
 * Parses the flag's comma-separated list; an unknown name is an error (a typo must not leave the
 * user believing a type is allowed).
 */
export function parseSecretTypes(list: string): Set<string> {
  const names = list
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter((name) => name !== '');
  const unknown = names.filter((name) => !SECRET_TYPE_NAMES.includes(name));
  if (unknown.length > 0)
    throw new Error(
      `${ALLOW_SECRET_FILES_FLAG}: unknown type ${unknown.map((n) => `"${n}"`).join(', ')}; known types: ${SECRET_TYPE_NAMES.join(', ')}.`,
    );
  return new Set(names);
}
