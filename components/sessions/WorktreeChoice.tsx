'use client';

export interface WorktreeValue {
  enabled: boolean;
  /** Empty: the runtime makes up a name. */
  branch: string;
}

export const NO_WORKTREE: WorktreeValue = { enabled: false, branch: '' };

/** SES-10: whether the new session works on a branch and worktree of its own, and the branch's name. */
export function WorktreeChoice({ value, onChange }: { value: WorktreeValue; onChange(value: WorktreeValue): void }) {
  return (
    <div className="worktree-choice" role="group" aria-label="Worktree">
      <label className="check">
        <input
          type="checkbox"
          checked={value.enabled}
          onChange={(e) => onChange({ ...value, enabled: e.target.checked })}
        />
        <span>Work on a new branch in its own worktree</span>
      </label>
      {value.enabled && (
        <label style={{ display: 'grid', gap: 4 }}>
          <span className="muted">Branch name (leave empty for a new one)</span>
          <input
            type="text"
            value={value.branch}
            placeholder="session-…"
            autoCapitalize="off"
            autoCorrect="off"
            spellCheck={false}
            maxLength={200}
            onChange={(e) => onChange({ ...value, branch: e.target.value })}
          />
        </label>
      )}
    </div>
  );
}
