import type { AgentItem } from '../../../../lib/protocol/rows';
import type { ClaudeMapped } from './claudeItems';

/** How often, and how many times, a subagent that ended is read again for what its live stream lacked. */
const RETRY_MS = 100;
const ATTEMPTS = 30;

/**
 * The closing text of subagents, live (TL-3). Claude Code streams a subagent's messages as it
 * works but not the last one, whose text it hands back as the Task/Agent call's result; the
 * subagent's saved messages get it a moment after the call ends. So once a subagent ended, its
 * saved items are read again (a few times, briefly) and those the live stream did not bring are
 * shown; at the turn's end every subagent still lacking them is read once more. A failed read
 * only costs those rows.
 */
export class SubagentClosings {
  /** Ids of subagent items shown live. */
  private readonly shown = new Set<string>();
  /** Subagents that ended and whose closing items were not found yet. */
  private readonly lacking = new Set<string>();

  constructor(
    private readonly readSaved: (toolUseId: string) => Promise<AgentItem[]>,
    private readonly show: (item: AgentItem) => void,
  ) {}

  /** What one live message showed: subagent items, and subagents that ended. */
  seen(mapped: readonly ClaudeMapped[]): void {
    for (const entry of mapped) {
      if (entry.kind !== 'item') continue;
      const item = entry.item;
      if (item.parentItemId !== null) this.shown.add(item.itemId);
      if (item.kind !== 'subagent' || item.status === 'running' || this.lacking.has(item.itemId)) continue;
      this.lacking.add(item.itemId);
      void this.poll(item.itemId);
    }
  }

  /** The turn ends: one last read of every subagent still lacking its closing items. */
  async finish(): Promise<void> {
    for (const id of [...this.lacking]) {
      this.lacking.delete(id);
      await this.sweep(id);
    }
  }

  private async poll(id: string): Promise<void> {
    for (let attempt = 0; attempt < ATTEMPTS && this.lacking.has(id); attempt += 1) {
      if (await this.sweep(id)) {
        this.lacking.delete(id);
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
    }
  }

  /** Shows the saved items of one subagent not shown yet; true when there were any. */
  private async sweep(id: string): Promise<boolean> {
    const saved = await this.readSaved(id).catch(() => []);
    let found = false;
    for (const item of saved) {
      if (this.shown.has(item.itemId)) continue;
      this.shown.add(item.itemId);
      this.show(item);
      found = true;
    }
    return found;
  }
}
