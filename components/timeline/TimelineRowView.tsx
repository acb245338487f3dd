'use client';
import { memo } from 'react';
import type { CommandRow, TimelineRow } from '../../lib/protocol/rows';
import type { RowContext } from './rowContext';
import { AgentErrorRowView } from './rows/AgentErrorRowView';
import { AgentTextRowView } from './rows/AgentTextRowView';
import { CommandCard } from './rows/CommandBody';
import { CompactionRowView } from './rows/CompactionRowView';
import { FileChangeRowView } from './rows/FileChangeRowView';
import { MessageRowView } from './rows/MessageRowView';
import { PlanRowView } from './rows/PlanRowView';
import { RawItemRowView } from './rows/RawItemRowView';
import { ReasoningRowView } from './rows/ReasoningRowView';
import { SubagentRowView } from './rows/SubagentRowView';
import { ToolCallRowView } from './rows/ToolCallRowView';
import { TurnEndRowView } from './rows/TurnEndRowView';
import { UserTextRowView } from './rows/UserTextRowView';

/** The view of one timeline row, by kind (TL-1); `command` is the shell command folded into its message. */
export const TimelineRowView = memo(function TimelineRowView({
  row,
  command,
  context,
}: {
  row: TimelineRow;
  command: CommandRow | null;
  context: RowContext;
}) {
  switch (row.kind) {
    case 'message':
      return <MessageRowView row={row} command={command} context={context} />;
    case 'command':
      return <CommandCard row={row} context={context} />;
    case 'settled':
      return (
        <div className="card timeline-text" data-row="settled">
          {row.text}
        </div>
      );
    case 'userText':
      return <UserTextRowView row={row} />;
    case 'agentText':
      return <AgentTextRowView row={row} />;
    case 'reasoning':
      return <ReasoningRowView row={row} />;
    case 'plan':
      return <PlanRowView row={row} />;
    case 'fileChange':
      return <FileChangeRowView row={row} context={context} />;
    case 'toolCall':
      return <ToolCallRowView row={row} context={context} />;
    case 'subagent':
      return <SubagentRowView row={row} context={context} />;
    case 'turnEnd':
      return <TurnEndRowView row={row} />;
    case 'compaction':
      return <CompactionRowView row={row} />;
    case 'agentError':
      return <AgentErrorRowView row={row} context={context} />;
    case 'rawItem':
      return <RawItemRowView row={row} context={context} />;
  }
});
