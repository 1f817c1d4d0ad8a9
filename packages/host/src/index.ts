export * from './errors.js';
export * from './bastion-host.js';
export * from './daemon-client.js';
export * from './user-data.js';
export * from './supervisor/daemon-socket-host.js';
export * from './supervisor/sidecar-launcher.js';
export * from './supervisor/sidecar-supervisor.js';
export * from './ui/ui-server.js';
