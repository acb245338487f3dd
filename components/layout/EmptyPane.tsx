import { PanelLeft } from 'lucide-react';

/** The second pane of the wide layout before anything is open in it: says why it is empty (UX-3, UX-6). */
export function EmptyPane({ message }: { message: string }) {
  return (
    <div className="empty-pane" role="note">
      <PanelLeft size={32} strokeWidth={1.5} aria-hidden="true" focusable="false" />
      <p className="muted">{message}</p>
    </div>
  );
}
