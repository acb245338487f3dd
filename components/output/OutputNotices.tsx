'use client';

interface OutputNoticesProps {
  findState: string | null;
  error: string | null;
  /** A page was neither cached nor readable. */
  unsaved: boolean;
  offline: boolean;
  /** The agent kept less of a finished command than it printed. */
  sourceIncomplete: boolean;
}

/** What the output viewer tells about the output: find progress, a failed read, what this device lacks. */
export function OutputNotices({ findState, error, unsaved, offline, sourceIncomplete }: OutputNoticesProps) {
  return (
    <>
      {findState && (
        <p className="muted" role="status" style={{ margin: '0 14px 6px' }}>
          {findState}
        </p>
      )}
      {error && (
        <p className="error" role="alert" style={{ margin: '0 14px' }}>
          {error}
        </p>
      )}
      {unsaved && offline && (
        <p className="muted" style={{ padding: '0 14px' }}>
          This part of the output was not saved on this device. It loads when the computer is reachable again.
        </p>
      )}
      {sourceIncomplete && (
        <p className="muted" style={{ margin: '0 14px 6px' }}>
          The agent kept less than the command printed; this may not be all of it.
        </p>
      )}
    </>
  );
}
