/** The cache folder that holds node_modules of the locked agent packages (it may not be installed yet). */
export function agentPackagesDir(): string;
/** Installs the locked agent packages when the cache lacks them; returns their folder. */
export function installAgentPackages(): string;
