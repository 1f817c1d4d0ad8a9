/** Test support: the built bridge and web app, or the built bridge with a fixture page as the "app". */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { DesktopAssetFiles } from '../../../src/ui/desktop-assets.js';

const packages = fileURLToPath(new URL('../../../../', import.meta.url));
export const BUILT_BRIDGE = `${packages}bridge/dist/bridge.js`;
export const BUILT_WEB = `${packages}web/dist`;

export function fixtureApp(name: string): DesktopAssetFiles {
  if (!existsSync(BUILT_BRIDGE)) throw new Error('build the bridge first: npm run build');
  return { bridgeFile: BUILT_BRIDGE, webDir: fileURLToPath(new URL(`../fixtures/${name}`, import.meta.url)) };
}
