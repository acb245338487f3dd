import { File, FileCode, FileImage, FileText, Folder, FolderGit2, type LucideIcon } from 'lucide-react';

const IMAGE = /\.(png|jpe?g|gif|webp|avif|bmp|ico|svg)$/i;
const TEXT = /\.(md|markdown|txt|rst|pdf)$/i;
const CODE = /\.(html?|css|[cm]?[jt]sx?|json|ya?ml|toml|py|rs|go|sh|rb|java|kt|swift|c|h|cc|cpp|sql|xml)$/i;

function iconFor(kind: 'project' | 'directory' | 'file', name: string): LucideIcon {
  if (kind === 'project') return FolderGit2;
  if (kind === 'directory') return Folder;
  if (IMAGE.test(name)) return FileImage;
  if (TEXT.test(name)) return FileText;
  if (CODE.test(name)) return FileCode;
  return File;
}

/**
 * A folder entry's icon as an inline SVG (FILE-4): emoji such as 📁 render as empty boxes on
 * systems without a colour emoji font, so the list uses Lucide outlines instead.
 */
export function EntryIcon({ kind, name }: { kind: 'project' | 'directory' | 'file'; name: string }) {
  const Icon = iconFor(kind, name);
  return (
    <Icon className="entry-icon" size={20} strokeWidth={1.8} aria-hidden="true" focusable="false" data-icon={kind} />
  );
}
