/** Shown for the moment a view's code is being fetched the first time it opens (UX-5). */
export function ViewLoading() {
  return (
    <p className="view-loading" role="status">
      Loading…
    </p>
  );
}
