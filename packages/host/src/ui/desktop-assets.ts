/**
 * The files the UI server may send: the built bridge (the preload analog) and the built web app.
 * Everything is read once into memory and looked up by exact name, so no request path ever
 * reaches the file system. The app's index.html carries a nonce placeholder (Vite's
 * `html.cspNonce`) that each response replaces with its fresh nonce, and the bridge is inserted
 * as the first script of <head>.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, extname, join } from 'node:path';
import { HostError } from '../errors.js';

/** What the web build writes where a nonce goes (`html.cspNonce` in packages/web/vite.config.ts). */
export const NONCE_PLACEHOLDER = 'BASTION_CSP_NONCE';
export const BRIDGE_PATH = '/desktop/bridge.js';
export const ASSETS_PREFIX = '/desktop/assets/';

const CONTENT_TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
  '.json': 'application/json; charset=utf-8',
};
const ASSET_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

export interface DesktopAssetFiles {
  /** The bridge bundle (`packages/bridge/dist/bridge.js`). */
  bridgeFile: string;
  /** The web build (`packages/web/dist`, with index.html and assets/). */
  webDir: string;
}

export interface StaticFile {
  body: Buffer;
  contentType: string;
}

export interface DesktopAssets {
  bridge: Buffer;
  /** index.html with the bridge inserted, to be passed through `renderIndex`. */
  indexTemplate: string;
  assets: ReadonlyMap<string, StaticFile>;
}

export function defaultDesktopAssetFiles(): DesktopAssetFiles {
  const require = createRequire(import.meta.url);
  try {
    return {
      bridgeFile: require.resolve('@bastion/bridge/bundle'),
      webDir: dirname(require.resolve('@bastion/web/index.html')),
    };
  } catch (cause) {
    throw new HostError('UI_NOT_BUILT', 'the desktop UI is not built: run npm run build', { cause });
  }
}

export function loadDesktopAssets(files: DesktopAssetFiles): DesktopAssets {
  try {
    const bridge = readFileSync(files.bridgeFile);
    const index = readFileSync(join(files.webDir, 'index.html'), 'utf8');
    const headAt = index.indexOf('<head>');
    if (headAt < 0 || index.indexOf('<script') < headAt) {
      throw new HostError('UI_NOT_BUILT', 'index.html must open <head> before any script');
    }
    const bridgeTag = `<script nonce="${NONCE_PLACEHOLDER}" src="${BRIDGE_PATH}"></script>`;
    const at = headAt + '<head>'.length;
    const indexTemplate = `${index.slice(0, at)}${bridgeTag}${index.slice(at)}`;
    const assets = new Map<string, StaticFile>();
    const assetDir = join(files.webDir, 'assets');
    for (const name of safeListing(assetDir)) {
      const contentType = CONTENT_TYPES[extname(name)];
      const path = join(assetDir, name);
      if (contentType && ASSET_NAME.test(name) && statSync(path).isFile()) {
        assets.set(name, { body: readFileSync(path), contentType });
      }
    }
    return { bridge, indexTemplate, assets };
  } catch (cause) {
    if (cause instanceof HostError) throw cause;
    throw new HostError('UI_NOT_BUILT', 'the desktop UI is not built: run npm run build', { cause });
  }
}

function safeListing(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

/** The app page for one response: every nonce placeholder becomes this response's nonce. */
export function renderIndex(template: string, nonce: string): string {
  return template.replaceAll(NONCE_PLACEHOLDER, nonce);
}
