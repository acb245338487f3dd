'use client';
import { useCallback, useEffect, useRef, useState } from 'react';
import type { RpcClient } from '../../lib/client/rpcClient';
import type { GitStatus } from '../../lib/protocol/git';

/** What the last tap came to: git's words on success or failure. */
export interface GitNotice {
  kind: 'done' | 'failed';
  text: string;
}

export interface GitRepo {
  status: GitStatus | null;
  /** Why there is no status: not a repository, offline, or git's words. */
  problem: string | null;
  /** The action running now ("Pushing…"); other buttons wait for it. */
  busy: string | null;
  notice: GitNotice | null;
  refresh: () => void;
  /**
   * Runs one tapped action (GIT-9) and reads the status again after it. `work` answers git's
   * words to show, a new status, or nothing; a failure shows its message, which for `git_failed`
   * is what git printed.
   */
  act: (label: string, work: (client: RpcClient) => Promise<string | GitStatus | void>) => Promise<boolean>;
}

/** A project's repository as the Git view shows it: read when opened and after each tap, never on a timer (GIT-1). */
export function useGitRepo(client: RpcClient | null, projectDirectory: string): GitRepo {
  const [status, setStatus] = useState<GitStatus | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState<string | null>(null);
  const [notice, setNotice] = useState<GitNotice | null>(null);
  const generation = useRef(0);

  const load = useCallback(async () => {
    const mine = ++generation.current;
    if (!client) {
      setProblem('Connect to the computer to see this project’s Git status.');
      return;
    }
    try {
      const next = await client.call('git.status', { projectDirectory });
      if (mine !== generation.current) return;
      setStatus(next);
      setProblem(null);
    } catch (error) {
      if (mine === generation.current) setProblem((error as Error).message);
    }
  }, [client, projectDirectory]);

  useEffect(() => {
    setStatus(null);
    setNotice(null);
    void load();
  }, [load]);

  const act = useCallback<GitRepo['act']>(
    async (label, work) => {
      if (!client) return false;
      setBusy(label);
      setNotice(null);
      let answer: Awaited<ReturnType<typeof work>>;
      try {
        answer = await work(client);
      } catch (error) {
        setBusy(null);
        setNotice({ kind: 'failed', text: (error as Error).message });
        await load();
        return false;
      }
      setBusy(null);
      if (typeof answer === 'string') setNotice({ kind: 'done', text: answer });
      if (answer && typeof answer === 'object') {
        generation.current++;
        setStatus(answer);
      } else await load();
      return true;
    },
    [client, load],
  );

  return { status, problem, busy, notice, refresh: () => void load(), act };
}
