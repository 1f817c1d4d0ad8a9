/**
 * SEC-004 page key: a second secret bound to the host-session cookie. The launch redirect hands
 * it to the page in the URL fragment (`/desktop/#bastion-page-key=<key>`, which no request and no
 * Referer carries); the bridge keeps it and sends it with every host IPC call in the header. The
 * cookie alone, which the browser also sends to every other loopback port, is not enough. Kept
 * apart from host-ipc.ts so the bridge bundle takes these names without the channel schemas.
 */
export const HOST_IPC_PAGE_KEY_HEADER = 'x-bastion-page-key';
export const DESKTOP_PAGE_KEY_FRAGMENT = 'bastion-page-key';
