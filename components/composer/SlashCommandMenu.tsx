'use client';
import { useEffect, useRef } from 'react';
import type { AgentCommand } from '../../lib/protocol/agents';
import type { AgentCommands } from './useAgentCommands';

export const SLASH_MENU_ID = 'composer-commands';
export const optionId = (index: number) => `${SLASH_MENU_ID}-${index}`;

/**
 * UX-10: the agent's commands matching what follows the `/`, above the message box. The active
 * one follows ↑ ↓ (the message box keeps the focus); a tap or click chooses one.
 */
export function SlashCommandMenu({
  commands,
  shown,
  query,
  active,
  onChoose,
}: {
  commands: AgentCommands;
  shown: AgentCommand[];
  query: string;
  active: number;
  onChoose: (command: AgentCommand) => void;
}) {
  const list = useRef<HTMLUListElement>(null);
  useEffect(() => {
    list.current?.querySelector(`#${optionId(active)}`)?.scrollIntoView({ block: 'nearest' });
  }, [active]);

  const note =
    commands.kind === 'loading'
      ? 'Loading commands…'
      : commands.kind === 'failed'
        ? `Could not list the commands: ${commands.message}`
        : shown.length === 0
          ? commands.commands.length === 0
            ? 'This agent offers no commands here.'
            : `No command matches /${query}.`
          : null;
  return (
    <div className="slash-menu card">
      {note !== null && (
        <p className={commands.kind === 'failed' ? 'slash-note error' : 'slash-note muted'} role="status">
          {note}
        </p>
      )}
      {shown.length > 0 && (
        <ul id={SLASH_MENU_ID} role="listbox" aria-label="Commands" ref={list}>
          {shown.map((command, index) => (
            <li
              key={command.name}
              id={optionId(index)}
              role="option"
              aria-selected={index === active}
              // The message box keeps the focus (and a phone its keyboard) while a command is tapped.
              onPointerDown={(event) => event.preventDefault()}
              onClick={() => onChoose(command)}
            >
              <span className="slash-name mono">
                /{command.name}
                {command.argumentHint && <span className="slash-hint"> {command.argumentHint}</span>}
              </span>
              {command.description && <span className="slash-description muted">{command.description}</span>}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
