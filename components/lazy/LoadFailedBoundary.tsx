'use client';
import { Component, type ComponentType, type ReactNode } from 'react';

interface State {
  failed: boolean;
  attempt: number;
}

/**
 * A view whose code could not be fetched (offline, and never opened before on this device, so the
 * service worker has no copy yet) says so with Try again, instead of taking the whole app down:
 * what sits beside it (the header, Sign out in Settings) keeps working (UX-5, PWA-3).
 */
class LoadFailedBoundary extends Component<{ children: (attempt: number) => ReactNode }, State> {
  override state: State = { failed: false, attempt: 0 };

  static getDerivedStateFromError(): Partial<State> {
    return { failed: true };
  }

  override componentDidCatch(error: unknown) {
    console.warn('A view could not be loaded', error);
  }

  override render() {
    if (!this.state.failed) return this.props.children(this.state.attempt);
    return (
      <div className="view-loading card" role="alert">
        <p>This screen is not saved on this device yet, and your computer cannot be reached to load it.</p>
        <button onClick={() => this.setState((s) => ({ failed: false, attempt: s.attempt + 1 }))}>Try again</button>
      </div>
    );
  }
}

/** `View` inside the boundary; Try again mounts a fresh copy of it, which fetches its code again. */
export function withLoadFailedBoundary<P extends object>(View: ComponentType<P>): ComponentType<P> {
  function Bounded(props: P) {
    return <LoadFailedBoundary>{(attempt) => <View key={attempt} {...props} />}</LoadFailedBoundary>;
  }
  Bounded.displayName = `LoadFailedBoundary(${View.displayName ?? View.name ?? 'View'})`;
  return Bounded;
}
