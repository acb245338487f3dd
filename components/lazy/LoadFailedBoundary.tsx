'use client';
import { Component, type ComponentType, type ReactNode } from 'react';

/**
 * A view whose code could not be fetched (offline, and never opened before on this device, so the
 * service worker has no copy yet) says so instead of taking the whole app down: what sits beside
 * it (the header, Sign out in Settings) keeps working (UX-5, PWA-3).
 * NOTE: Reload, not a retry in place: React.lazy keeps a failed import failed for the page's life.
 */
class LoadFailedBoundary extends Component<{ children: ReactNode }, { failed: boolean }> {
  override state = { failed: false };

  static getDerivedStateFromError(): { failed: boolean } {
    return { failed: true };
  }

  override componentDidCatch(error: unknown) {
    console.warn('A view could not be loaded', error);
  }

  override render() {
    if (!this.state.failed) return this.props.children;
    return (
      <div className="view-loading card" role="alert">
        <p>
          This screen is not saved on this device yet, and your computer cannot be reached to load it. Reload once you
          are connected.
        </p>
        <button onClick={() => window.location.reload()}>Reload</button>
      </div>
    );
  }
}

/** `View` inside the boundary. */
export function withLoadFailedBoundary<P extends object>(View: ComponentType<P>): ComponentType<P> {
  function Bounded(props: P) {
    return (
      <LoadFailedBoundary>
        <View {...props} />
      </LoadFailedBoundary>
    );
  }
  Bounded.displayName = `LoadFailedBoundary(${View.displayName ?? View.name ?? 'View'})`;
  return Bounded;
}
