/**
 * Test support: a desktop host session got the way a browser gets one. A launch ticket is
 * redeemed over a real socket; the cookie comes from its Set-Cookie and the page key from the
 * fragment of its redirect (`/desktop/#bastion-page-key=…`), as the bridge reads it. `headers`
 * are the two that host IPC demands together; tests add Origin, Referer and the rest.
 */
import { DESKTOP_PAGE_KEY_FRAGMENT, HOST_IPC_PAGE_KEY_HEADER } from '@bastion/protocol';
import type { BastionHost } from '../../src/bastion-host.js';
import { rawRequest } from './raw-request.js';

export interface DesktopSession {
  /** `bastion_session_<port>=<token>`, ready for a Cookie header. */
  cookie: string;
  pageKey: string;
  headers: { cookie: string; [HOST_IPC_PAGE_KEY_HEADER]: string };
}

export async function launchDesktopSession(host: Pick<BastionHost, 'desktop' | 'ui'>): Promise<DesktopSession> {
  const ticket = new URL(host.desktop.issueLaunchUrl()).searchParams.get('ticket') ?? '';
  const launched = await rawRequest({
    port: host.ui.port,
    method: 'GET',
    path: `/desktop/launch?ticket=${ticket}`,
    headers: { host: `127.0.0.1:${host.ui.port}` },
  });
  const cookie = (launched.headers['set-cookie']?.[0] ?? '').split(';')[0] ?? '';
  const fragment = new URL(launched.headers.location ?? '', 'http://x').hash;
  const pageKey = new URLSearchParams(fragment.slice(1)).get(DESKTOP_PAGE_KEY_FRAGMENT) ?? '';
  if (launched.status !== 303 || cookie === '' || pageKey === '') {
    throw new Error(
      `launch gave no session (status ${launched.status}, location ${fragment === '' ? 'without' : 'with'} a fragment)`,
    );
  }
  return { cookie, pageKey, headers: { cookie, [HOST_IPC_PAGE_KEY_HEADER]: pageKey } };
}
