import { ClaudeCheckPage } from '../../components/agents/ClaudeCheckPage';

/** Claude accounts and session options on a page of their own (ACC-2, ACC-5, ACC-8). */
export default function ClaudeCheck() {
  return <ClaudeCheckPage />;
}
