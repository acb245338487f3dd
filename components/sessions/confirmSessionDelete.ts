import { RpcError, type RpcClient } from '../../lib/client/rpcClient';
import type { Session } from '../../lib/protocol/rows';

/**
 * Asks before deleting a session (SES-1) and, for one with a worktree, whether to remove the
 * worktree and its branch too (SES-11); when the runtime says they hold work the project's HEAD
 * lacks, asks again, naming it, before removing them anyway. False when the person cancelled.
 */
export async function confirmSessionDelete(
  client: RpcClient,
  session: Session,
  confirm: (message: string) => boolean = (m) => window.confirm(m),
): Promise<boolean> {
  if (!confirm(`Delete "${session.title}"? Its messages and command output are removed from this computer.`))
    return false;
  const worktree = session.worktree;
  const removeWorktree = worktree
    ? confirm(
        `Also remove its worktree and the branch "${worktree.branch}"?\n\nOK removes them; Cancel keeps them on disk at ${worktree.path}.`,
      )
    : false;
  try {
    await client.call('sessions.delete', { sessionId: session.id, ...(removeWorktree ? { removeWorktree } : {}) });
    return true;
  } catch (error) {
    if (!(error instanceof RpcError) || error.code !== 'conflict' || error.data.reason !== 'unmerged_worktree')
      throw error;
    if (
      !confirm(
        `${error.message}\n\nOK deletes the session and removes the worktree and branch with that work; Cancel keeps everything.`,
      )
    )
      return false;
    await client.call('sessions.delete', { sessionId: session.id, removeWorktree: true, force: true });
    return true;
  }
}
