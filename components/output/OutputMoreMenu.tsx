'use client';
import { useEffect, useRef, useState, type ReactNode } from 'react';

/**
 * The viewer's rarer controls (UX-4): on a wide screen they sit in the toolbar's row; on a phone
 * behind one 44 px button, in a menu that closes after a choice, on Escape and on a tap outside.
 */
export function OutputMoreMenu({ children }: { children: ReactNode }) {
  const [open, setOpen] = useState(false);
  const box = useRef<HTMLDivElement>(null);

  useEffect(() => {
    if (!open) return;
    const outside = (event: PointerEvent) => {
      if (!(event.target instanceof Node) || !box.current?.contains(event.target)) setOpen(false);
    };
    document.addEventListener('pointerdown', outside);
    return () => document.removeEventListener('pointerdown', outside);
  }, [open]);

  return (
    <div
      ref={box}
      className={`output-more${open ? ' open' : ''}`}
      onKeyDown={(e) => e.key === 'Escape' && setOpen(false)}
      // A choice closes the menu; the click still reaches the chosen button first.
      onClick={(e) => e.target instanceof Element && e.target.closest('.output-more-items button') && setOpen(false)}
    >
      <button
        className="icon-button output-more-toggle"
        aria-label="More output controls"
        aria-expanded={open}
        onClick={() => setOpen(!open)}
      >
        ⋯
      </button>
      <div className="output-more-items">{children}</div>
    </div>
  );
}
