/**
 * Test support: a second loopback origin that serves whatever pages a test hands it — the
 * "other site" of cross-origin and path-scope tests. Not part of Bastion.
 */
import { createServer, type Server } from 'node:http';

export interface PagesServer {
  readonly origin: string;
  close(): Promise<void>;
}

export async function startPagesServer(
  pages: Record<string, { type: string; body: string | Buffer }>,
): Promise<PagesServer> {
  const server: Server = createServer((req, res) => {
    const page = pages[new URL(req.url ?? '/', 'http://x').pathname];
    if (!page) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': page.type, 'cache-control': 'no-store' });
    res.end(page.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no address');
  return {
    origin: `http://127.0.0.1:${address.port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
