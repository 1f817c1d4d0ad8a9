/**
 * What the tests and benchmarks of more than one package share. A package's own internals reach
 * other packages' tests only through its `./testing` export, never a relative path into its src.
 */
export * from './loopback-servers.js';
export * from './processes.js';
export * from './scripted-chat-endpoint.js';
export * from './temp-dirs.js';
