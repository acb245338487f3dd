// The programs of the bundle that scripts/build-runtime.mjs builds into dist/: each one's file
// name there (dist/NAME.mjs) and its TypeScript source. The runtime reads this list to name the
// child programs it starts (server/runtime/process/childProgram.ts).
export const BUNDLE_FOLDER = 'dist';

export const RUNTIME_PROGRAMS = {
  main: 'server/main.ts',
  relay: 'relay/main.ts',
  claudeHost: 'server/runtime/agents/claude/claudeHost.ts',
  sessionTools: 'server/runtime/messages/sessionToolServer.ts',
  imageRenderer: 'server/runtime/media/imageRenderProgram.ts',
};
