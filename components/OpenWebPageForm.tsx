'use client';
import { useEffect, useState } from 'react';

/** Type or paste a web address to read it as Markdown (MD-1); only http(s) addresses are offered. */
export function OpenWebPageForm({ initialUrl = '', onOpen }: { initialUrl?: string; onOpen: (url: string) => void }) {
  const [text, setText] = useState(initialUrl);
  useEffect(() => setText(initialUrl), [initialUrl]);
  return (
    <form
      className="open-web-page grow"
      role="search"
      onSubmit={(event) => {
        event.preventDefault();
        const url = readableAddress(text);
        if (url) onOpen(url);
      }}
    >
      <input
        type="url"
        inputMode="url"
        aria-label="Web address"
        placeholder="https://… open as Markdown"
        value={text}
        onChange={(e) => setText(e.target.value)}
      />
      <button type="submit">Read</button>
    </form>
  );
}

/** The address as typed, with https:// added when no scheme was given; null for anything but http(s). */
function readableAddress(text: string): string | null {
  const trimmed = text.trim();
  if (!trimmed) return null;
  try {
    const url = new URL(/^[a-z][a-z0-9+.-]*:/i.test(trimmed) ? trimmed : `https://${trimmed}`);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : null;
  } catch {
    return null;
  }
}
