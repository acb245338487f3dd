'use client';
import { useState } from 'react';
import type { RpcClient } from '../../../lib/client/rpcClient';
import type { FileChange } from '../../../lib/protocol/rows';
import { ReadRestButton } from '../ReadRestButton';
import { useItemText, type ItemTextSource } from '../useItemText';
import { DiffLines } from './DiffLines';

const CHANGE_LABEL: Record<FileChange['change'], string> = { add: 'added', delete: 'deleted', update: 'modified' };

/**
 * One file of a file change (TL-1): its path, added/removed counts and its unified diff (paged,
 * see DiffLines); a diff longer than the row carries is read on through `sessions.itemText`.
 */
export function FileDiff({
  client,
  source,
  file,
}: {
  client: RpcClient | null;
  source: ItemTextSource;
  file: FileChange;
}) {
  const item = useItemText(client, source, file.diff);
  const [open, setOpen] = useState(true);

  return (
    <section className="file-diff" data-file={file.path}>
      <button type="button" className="file-diff-header" aria-expanded={open} onClick={() => setOpen((o) => !o)}>
        <span className="mono grow file-diff-path">
          {file.movePath ? `${file.path} → ${file.movePath}` : file.path}
        </span>
        <span className="pill">{CHANGE_LABEL[file.change]}</span>
        <span className="diff-count-added" aria-label={`${file.added} lines added`}>
          +{file.added}
        </span>
        <span className="diff-count-removed" aria-label={`${file.removed} lines removed`}>
          −{file.removed}
        </span>
      </button>
      {open &&
        (file.binary ? (
          <p className="muted file-diff-note">Binary file: no text diff.</p>
        ) : (
          <DiffLines
            text={item.text}
            complete={item.complete}
            path={file.movePath ?? file.path}
            actions={(allShown) => <ReadRestButton client={client} item={item} offer={allShown} />}
          />
        ))}
    </section>
  );
}
