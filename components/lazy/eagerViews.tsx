// The same views as lazyViews.tsx, bundled into the first screen: only the bench's reference
// build uses it (next.config.mjs), to measure what splitting saves (UX-5).
export { SessionView } from '../SessionView';
export { FilesView } from '../files/FilesView';
export { GitView } from '../git/GitView';
export { DevicesScreen } from '../devices/DevicesScreen';
export { AccountsView } from '../agents/AccountsView';
export { PreviewPane } from '../PreviewPane';
export { ReaderView } from '../ReaderView';
export { SettingsScreen } from '../settings/SettingsScreen';
