'use client';
import { useState } from 'react';

/** An API key for one Claude account (ACC-2): entered once, never shown again. */
export function ClaudeApiKeyForm({
  hasApiKey,
  busy,
  onSave,
}: {
  hasApiKey: boolean;
  busy: boolean;
  onSave(apiKey: string | null): void;
}) {
  const [value, setValue] = useState('');
  return (
    <form
      className="row"
      style={{ gap: 8, flexWrap: 'wrap', marginTop: 8 }}
      onSubmit={(event) => {
        event.preventDefault();
        if (value.trim()) onSave(value.trim());
        setValue('');
      }}
    >
      <input
        type="password"
        autoComplete="off"
        aria-label="Anthropic API key"
        placeholder={hasApiKey ? 'New API key (one is saved)' : 'Anthropic API key'}
        value={value}
        onChange={(event) => setValue(event.target.value)}
        style={{ flex: '1 1 220px', minWidth: 0 }}
      />
      <button type="submit" disabled={busy || !value.trim()}>
        Save key
      </button>
      {hasApiKey && (
        <button type="button" onClick={() => onSave(null)} disabled={busy}>
          Forget key
        </button>
      )}
    </form>
  );
}
