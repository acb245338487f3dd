import { RpcError } from '../../lib/client/rpcClient';

export interface PrivateRefusal {
  message: string;
  allowWith: string | null;
}

/** The runtime's `secret_file` refusal (FILE-6), from files.list or a read; null for any other error. */
export function privateRefusalOf(error: unknown): PrivateRefusal | null {
  if (!(error instanceof RpcError && error.code === 'secret_file')) return null;
  return { message: error.message, allowWith: typeof error.data.allowWith === 'string' ? error.data.allowWith : null };
}

/** What a viewer shows for a failed read: the private-file notice for a FILE-6 refusal, else the error's words. */
export function failedReadState(
  error: unknown,
): ({ kind: 'private' } & PrivateRefusal) | { kind: 'error'; message: string } {
  const refusal = privateRefusalOf(error);
  return refusal ? { kind: 'private', ...refusal } : { kind: 'error', message: (error as Error).message };
}

/**
 * A file the desktop keeps private (FILE-6): what it holds, in the runtime's plain words, and the
 * start-up option that would show files of its kind, set apart so it can be copied.
 */
export function PrivateFile({ name, message, allowWith }: { name: string; message: string; allowWith: string | null }) {
  const [words, option] =
    allowWith && message.includes(allowWith) ? splitAtOption(message, allowWith) : [message, null];
  return (
    <section className="private-file" role="alert" aria-labelledby="private-file-title">
      <h2 id="private-file-title" className="private-file-title">
        <LockIcon /> {name} is kept private
      </h2>
      <p>{withoutLead(words)}</p>
      {option !== null && (
        <p className="muted">
          {option.before}
          <code>{allowWith}</code>
          {option.after}
        </p>
      )}
    </section>
  );
}

/** A padlock drawn in the current colour (an emoji may have no font on the device). */
function LockIcon() {
  return (
    <svg
      className="private-file-icon"
      viewBox="0 0 24 24"
      width="20"
      height="20"
      aria-hidden="true"
      fill="none"
      stroke="currentColor"
      strokeWidth="2"
      strokeLinecap="round"
      strokeLinejoin="round"
    >
      <rect x="4" y="11" width="16" height="10" rx="2" />
      <path d="M8 11V7a4 4 0 0 1 8 0v4" />
    </svg>
  );
}

/** The runtime's words without the heading's: "This file is kept private: it holds X." → "It holds X." */
function withoutLead(words: string): string {
  const lead = /^This file is kept private: /.exec(words);
  if (!lead) return words;
  const rest = words.slice(lead[0].length);
  return rest.charAt(0).toUpperCase() + rest.slice(1);
}

/** "…holds X. To show files of this kind, start the runtime with FLAG." → the first sentence, and the rest around the flag. */
function splitAtOption(message: string, allowWith: string): [string, { before: string; after: string }] {
  const hint = message.lastIndexOf('. ', message.indexOf(allowWith));
  const words = hint === -1 ? '' : message.slice(0, hint + 1);
  const rest = hint === -1 ? message : message.slice(hint + 2);
  const at = rest.indexOf(allowWith);
  return [words, { before: rest.slice(0, at), after: rest.slice(at + allowWith.length) }];
}
