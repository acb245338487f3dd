import './navigation/navigation.css';

/** A blank screen that says why it is blank and what to do next (UX-3). */
export function EmptyState({ name, title, hint }: { name: string; title: string; hint: string }) {
  return (
    <div className="empty-state" role="status" data-empty={name}>
      <p className="empty-state-title">{title}</p>
      <p className="muted">{hint}</p>
    </div>
  );
}
