export const DAEMON_VERSION = '0.1.0';
