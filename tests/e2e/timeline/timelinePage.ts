/**
 * A page that shows a fixture session through the app's own SessionView and RpcClient: the
 * runtime's answers come from FixtureSocket, everything the user sees is the real component.
 * `?fixture=many&count=N` shows N rows instead of one of every kind.
 */
import '../../../lib/client/zodWithoutEval';
import '../../../app/globals.css';
import { createElement } from 'react';
import { createRoot } from 'react-dom/client';
import { SessionView } from '../../../components/SessionView';
import { RpcClient } from '../../../lib/client/rpcClient';
import { FixtureSocket, type FixtureControls } from './fixtureSocket';
import { everyRowKind, manyRows } from './timelineFixture';

const query = new URLSearchParams(location.search);
const fixture = query.get('fixture') === 'many' ? manyRows(Number(query.get('count') ?? 1000)) : everyRowKind();
const socket = new FixtureSocket(fixture);
(globalThis as unknown as { __timeline: FixtureControls }).__timeline = socket.controls;
const client = new RpcClient(socket);
const root = document.getElementById('root');
if (!root) throw new Error('the page has no #root');
createRoot(root).render(createElement('div', { className: 'app' }, createElement(SessionView, { client, session: fixture.session, onBack: () => {} })));
