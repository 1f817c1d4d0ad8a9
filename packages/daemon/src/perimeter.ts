/**
 * SEC-004 perimeter guards (`@bastion/daemon/perimeter`): the daemon's Origin and Referer guards
 * as plain functions, which the host UI server's IPC route runs with its own IPC_* refusals.
 */
export type { GuardRefusal, PerimeterGuard } from './http/perimeter/perimeter-guard.js';
export { originGuard } from './http/perimeter/origin-guard.js';
export { refererGuard } from './http/perimeter/referer-guard.js';
