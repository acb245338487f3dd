export * from './version';
export * from './errors';
export * from './jsonrpc';
export * from './rows';
export * from './agents';
export * from './methods';
export * from './notifications';
export * from './binaryFrame';
