/** The folder of the bundle, relative to the repository root. */
export const BUNDLE_FOLDER: string;
/** Each program of the bundle: its file name in the bundle folder (NAME.mjs) and its source. */
export const RUNTIME_PROGRAMS: {
  main: string;
  relay: string;
  claudeHost: string;
  sessionTools: string;
  imageRenderer: string;
};
