'use client';
import { useEffect, useMemo, useRef, useState, type FormEvent, type KeyboardEvent } from 'react';
import type { OutboxEntry } from '../lib/client/appDb';
import type { RpcClient } from '../lib/client/rpcClient';
import { commandText } from '../lib/client/composer/slashCommands';
import { insertPhrase } from '../lib/client/composer/speechText';
import type { AgentCommand } from '../lib/protocol/agents';
import { discardOutboxEntry, enqueueMessage, retryOutboxEntry } from '../lib/client/outbox';
import { entriesToShow, type OutboxState } from '../lib/client/outboxRules';
import type { Session, TimelineRow } from '../lib/protocol/rows';
import { useSessionOutbox } from './useOutbox';
import { useCoarsePointer, useComposerText } from './composer/useComposerText';
import { SendIcon } from './attachments/AttachmentIcons';
import './composer/composer.css';
import { AttachmentPicker } from './attachments/AttachmentPicker';
import { DraftAttachments } from './attachments/DraftAttachments';
import { OutboxAttachments } from './attachments/OutboxAttachments';
import { textForAttachmentsOnly } from './attachments/messageText';
import { useAttachmentDraft } from './attachments/useAttachmentDraft';
import { optionId, SLASH_MENU_ID, SlashCommandMenu } from './composer/SlashCommandMenu';
import { useSlashMenu } from './composer/useSlashMenu';
import { useSpeechInput } from './composer/useSpeechInput';
import { VoiceButton, VoiceStatus } from './composer/VoiceInput';

const STATE_LABELS: Record<OutboxState, string> = {
  queued: 'Queued',
  sending: 'Sending…',
  sent: 'Sent',
  failed: 'Failed',
};

/**
 * The message box. A message goes to the outbox, never straight to the socket, so it is kept
 * while offline or disconnected and sent once a connection is open (PWA-4).
 */
export function Composer({
  client,
  session,
  turnRunning = false,
}: {
  client: RpcClient | null;
  session: Session;
  turnRunning?: boolean;
}) {
  const { text, setText, edit, sent, onRecallKey } = useComposerText(session.id);
  const box = useRef<HTMLTextAreaElement>(null);
  const coarse = useCoarsePointer();
  const [error, setError] = useState<string | null>(null);
  /** While a turn runs (ACC-6): the message waits for it (default) or steers it. */
  const [steer, setSteer] = useState(false);
  const steering = turnRunning && steer && session.agent !== 'shell';
  const draft = useAttachmentDraft();
  const message = text.trim() || textForAttachmentsOnly(session.agent, draft.items);

  /** Text put in the box and not yet rendered, so two phrases in one frame both land. */
  const placing = useRef<{ text: string; caret: number } | null>(null);

  /** Puts `next` in the message box with the caret at `caret`, without moving the focus there. */
  function showText(next: string, caret: number) {
    placing.current = { text: next, caret };
    edit(next);
    requestAnimationFrame(() => {
      placing.current = null;
      box.current?.setSelectionRange(caret, caret);
    });
  }

  /** UX-9: a recognised phrase goes in at the caret (or over the selection), never sent. */
  const speech = useSpeechInput((phrase) => {
    const area = box.current;
    if (!area) return;
    const base = placing.current;
    const placed = base
      ? insertPhrase(base.text, base.caret, base.caret, phrase)
      : insertPhrase(area.value, area.selectionStart, area.selectionEnd, phrase);
    showText(placed.text, placed.caret);
  });

  /** UX-10: a chosen command fills the message box, ready for its arguments. */
  function chooseCommand(command: AgentCommand) {
    const next = commandText(command);
    showText(next, next.length);
    box.current?.focus();
  }
  const slash = useSlashMenu(client, session, text, chooseCommand);

  async function submit(event?: FormEvent) {
    event?.preventDefault();
    if (message === '') return;
    setError(null);
    // Cleared before the database answers, so text typed meanwhile is not lost.
    sent(message);
    speech.reset();
    const picked = draft.items;
    try {
      // A message with files waits for a turn of its own: steering carries text only (ATT-2).
      await enqueueMessage(session.id, message, {
        mode: steering && draft.items.length === 0 ? 'steer' : undefined,
        attachments: await draft.take(),
      });
    } catch (caught) {
      setText((current) => (current === '' ? message : current));
      draft.restore(picked);
      setError(
        caught instanceof Error
          ? `Could not keep the message on this device: ${caught.message}`
          : 'Could not keep the message on this device.',
      );
    }
  }

  /** UX-3: on a desktop Enter sends and Shift+Enter adds a line; on a touch screen return adds a line. */
  function onKeyDown(event: KeyboardEvent<HTMLTextAreaElement>) {
    if (slash.onKey(event)) return;
    if (!coarse && onRecallKey(event)) return;
    if (event.key === 'Enter' && !event.shiftKey && !coarse && !event.nativeEvent.isComposing) {
      event.preventDefault();
      void submit();
    }
  }

  return (
    <>
      {error && (
        <p className="error" role="alert" style={{ padding: '0 14px' }}>
          {error}
        </p>
      )}
      {turnRunning && session.agent !== 'shell' && (
        <div className="row composer-mode">
          <span className="muted">While it runs</span>
          <div className="segmented" role="radiogroup" aria-label="While the turn runs">
            <label title="Queue after this turn">
              <input
                type="radio"
                name={`mode-${session.id}`}
                aria-label="Queue after this turn"
                checked={!steer}
                onChange={() => setSteer(false)}
              />
              Queue
            </label>
            <label title="Steer this turn">
              <input
                type="radio"
                name={`mode-${session.id}`}
                aria-label="Steer this turn"
                checked={steer}
                onChange={() => setSteer(true)}
              />
              Steer
            </label>
          </div>
        </div>
      )}
      <DraftAttachments draft={draft} />
      <VoiceStatus state={speech.state} />
      <form className="composer" onSubmit={submit} onDragOver={draft.onDragOver} onDrop={draft.onDrop}>
        {slash.open && (
          <SlashCommandMenu
            commands={slash.commands}
            shown={slash.shown}
            query={slash.query}
            active={slash.active}
            onChoose={chooseCommand}
          />
        )}
        <AttachmentPicker onFiles={draft.add} />
        <textarea
          ref={box}
          aria-label="Message"
          aria-autocomplete={session.agent === 'codex' || session.agent === 'claude' ? 'list' : undefined}
          aria-controls={slash.shown.length > 0 ? SLASH_MENU_ID : undefined}
          aria-activedescendant={slash.shown.length > 0 ? optionId(slash.active) : undefined}
          rows={1}
          value={text}
          enterKeyHint={coarse ? 'enter' : 'send'}
          placeholder={session.agent === 'shell' ? 'A command to run' : 'Message'}
          onChange={(e) => edit(e.target.value)}
          onKeyDown={onKeyDown}
          onPaste={draft.onPaste}
        />
        {speech.supported && <VoiceButton state={speech.state} onStart={speech.start} onStop={speech.stop} />}
        <button
          className="primary composer-send"
          type="submit"
          disabled={message === ''}
          aria-label={steering ? 'Steer' : 'Send'}
        >
          <SendIcon />
          <span className="composer-send-label">{steering ? 'Steer' : 'Send'}</span>
        </button>
      </form>
    </>
  );
}

function OutboxItem({ entry }: { entry: OutboxEntry }) {
  const failed = entry.state === 'failed';
  return (
    <div
      className="card message"
      data-row="outbox"
      data-outbox-state={entry.state}
      data-operation-id={entry.operationId}
      style={{ borderLeftStyle: 'dashed' }}
    >
      <div className="mono" style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-word' }}>
        {entry.text}
      </div>
      <OutboxAttachments operationId={entry.operationId} attachments={entry.attachments} />
      {/* The runtime's reason on a line of its own, so a narrow screen does not squeeze it beside the buttons. */}
      {failed && entry.error && (
        <div className="error" role="status">
          {entry.error}
        </div>
      )}
      <div className="row muted">
        <span className={failed ? 'error grow' : undefined}>{STATE_LABELS[entry.state]}</span>
        {failed && (
          <>
            <button onClick={() => void retryOutboxEntry(entry.operationId)}>Retry</button>
            <button className="danger" onClick={() => void discardOutboxEntry(entry.operationId)}>
              Discard
            </button>
          </>
        )}
      </div>
    </div>
  );
}

/**
 * This device's messages of the session that the runtime's timeline does not show yet: queued,
 * sending, failed (with Retry and Discard), and sent until their message row arrives.
 */
export function OutboxEntries({ sessionId, rows }: { sessionId: string; rows: TimelineRow[] }) {
  const entries = useSessionOutbox(sessionId);
  const shown = useMemo(() => {
    const operationIds = new Set(rows.flatMap((row) => (row.kind === 'message' ? [row.operationId] : [])));
    return entriesToShow(entries, operationIds);
  }, [entries, rows]);
  const end = useRef<HTMLDivElement>(null);

  useEffect(() => {
    if (shown.length > 0) end.current?.scrollIntoView({ block: 'end' });
  }, [shown.length]);

  if (shown.length === 0) return null;
  return (
    <div role="group" aria-label="Outbox">
      {shown.map((entry) => (
        <OutboxItem key={entry.operationId} entry={entry} />
      ))}
      <div ref={end} />
    </div>
  );
}
