/**
 * Variables the runtime holds for itself and never hands to a child (SEC-4): the scripts' token
 * opens the whole protocol, so a command, Codex or the Claude host that could read it could
 * drive the runtime.
 */
const RUNTIME_SECRETS = ['HBCODE_TOKEN'] as const;

/** The runtime's environment with `overrides` applied and its own secrets removed. */
export function childEnvironment(
  overrides: NodeJS.ProcessEnv = {},
  base: NodeJS.ProcessEnv = process.env,
): NodeJS.ProcessEnv {
  const env = { ...base, ...overrides };
  for (const name of RUNTIME_SECRETS) delete env[name];
  return env;
}
