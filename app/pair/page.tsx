import { AppShell } from '../../components/AppShell';

/** The pairing link printed at start-up lands here (`/pair#code=…`); the shell shows pairing. */
export default function Pair() {
  return <AppShell />;
}
