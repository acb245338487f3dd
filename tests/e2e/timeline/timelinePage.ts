/**
 * A page that shows a fixture session through the app's own SessionView and RpcClient: the
 * runtime's answers come from FixtureSocket, everything the user sees is the real component.
 *   ?fixture=many&count=N   N rows instead of one of every kind
 *   ?fixture=plain&count=N  the same N rows as plain text (the benchmarks' reference)
 *   ?fixture=bench          nothing shown; `__bench` mounts rows for the benchmarks to time
 */
import '../../../lib/client/zodWithoutEval';
import '../../../app/globals.css';
import { createElement } from 'react';
import { createRoot } from 'react-dom/client';
import { SessionView } from '../../../components/SessionView';
import { RpcClient } from '../../../lib/client/rpcClient';
import { benchModes, renderPlainRows, type BenchModes } from './benchModes';
import { FixtureSocket, type FixtureControls } from './fixtureSocket';
import { everyRowKind, manyRows } from './timelineFixture';

const query = new URLSearchParams(location.search);
const mode = query.get('fixture');
const count = Number(query.get('count') ?? 1000);
const fixture =
  mode === 'many' || mode === 'plain' ? manyRows(count) : everyRowKind(mode === 'bench' ? { longResultBytes: 1 } : {});
const socket = new FixtureSocket(fixture);
const page = globalThis as unknown as { __timeline: FixtureControls; __bench: BenchModes };
page.__timeline = socket.controls;
const client = new RpcClient(socket);
const root = document.getElementById('root');
if (!root) throw new Error('the page has no #root');
if (mode === 'plain') renderPlainRows(root, fixture.rows);
else if (mode === 'bench') page.__bench = benchModes(client, root);
else
  createRoot(root).render(
    createElement(
      'div',
      { className: 'app' },
      createElement(SessionView, { client, session: fixture.session, onBack: () => {} }),
    ),
  );
