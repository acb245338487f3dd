import type { LanguageRegistration } from 'shiki/core';

type LanguageModule = { default: LanguageRegistration[] };

/**
 * The grammars the app ships, each loaded only when a file needs it. A short list on purpose:
 * every grammar is a chunk in the static export and in the offline precache.
 */
const LOADERS: Record<string, () => Promise<LanguageModule>> = {
  typescript: () => import('shiki/langs/typescript.mjs'),
  tsx: () => import('shiki/langs/tsx.mjs'),
  javascript: () => import('shiki/langs/javascript.mjs'),
  jsx: () => import('shiki/langs/jsx.mjs'),
  json: () => import('shiki/langs/json.mjs'),
  html: () => import('shiki/langs/html.mjs'),
  css: () => import('shiki/langs/css.mjs'),
  markdown: () => import('shiki/langs/markdown.mjs'),
  python: () => import('shiki/langs/python.mjs'),
  rust: () => import('shiki/langs/rust.mjs'),
  go: () => import('shiki/langs/go.mjs'),
  java: () => import('shiki/langs/java.mjs'),
  c: () => import('shiki/langs/c.mjs'),
  cpp: () => import('shiki/langs/cpp.mjs'),
  shellscript: () => import('shiki/langs/shellscript.mjs'),
  yaml: () => import('shiki/langs/yaml.mjs'),
  toml: () => import('shiki/langs/toml.mjs'),
  sql: () => import('shiki/langs/sql.mjs'),
  ruby: () => import('shiki/langs/ruby.mjs'),
  xml: () => import('shiki/langs/xml.mjs'),
  diff: () => import('shiki/langs/diff.mjs'),
};

const ALIASES: Record<string, string> = {
  ts: 'typescript',
  mts: 'typescript',
  cts: 'typescript',
  js: 'javascript',
  mjs: 'javascript',
  cjs: 'javascript',
  py: 'python',
  rs: 'rust',
  sh: 'shellscript',
  bash: 'shellscript',
  zsh: 'shellscript',
  shell: 'shellscript',
  yml: 'yaml',
  md: 'markdown',
  htm: 'html',
  h: 'c',
  hpp: 'cpp',
  cc: 'cpp',
  'c++': 'cpp',
  rb: 'ruby',
  svg: 'xml',
  patch: 'diff',
  jsonc: 'json',
  json5: 'json',
};

/** A shipped language id for a fence tag or an extension, or null (then the text stays plain). */
export function resolveLanguage(nameOrExtension: string): string | null {
  const key = nameOrExtension.trim().toLowerCase();
  const id = ALIASES[key] ?? key;
  return Object.hasOwn(LOADERS, id) ? id : null;
}

/** The language of a file by its extension. */
export function languageForPath(path: string): string | null {
  const name = path.slice(path.lastIndexOf('/') + 1);
  const dot = name.lastIndexOf('.');
  return dot > 0 ? resolveLanguage(name.slice(dot + 1)) : null;
}

export async function loadLanguage(id: string): Promise<LanguageRegistration[]> {
  const loader = LOADERS[id];
  if (!loader) throw new Error(`No grammar for ${id}`);
  return (await loader()).default;
}
