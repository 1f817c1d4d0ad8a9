import { describe, expect, it } from 'vitest';
import { bastionTempParentOf, claimedTempRootOf } from './bastion-temp-denies.js';

const UID = process.getuid?.() ?? 0;
const PARENT = '/tmp/bastion-1000';
const OWN = `${PARENT}/bastion-host-00112233445566aa`;

describe('bastionTempParentOf', () => {
  it('is the parent of every claimed root (this host’s, other hosts’, later ones’) for a sidecar, command or server in a claimed root', () => {
    expect(bastionTempParentOf(`${OWN}/bastion-sidecar-xyz789`)).toBe(PARENT);
    expect(bastionTempParentOf(`${OWN}/bastion-cmd-xyz789`)).toBe(PARENT);
    expect(bastionTempParentOf(`${OWN}/bastion-mcp-xyz789`)).toBe(PARENT);
    expect(claimedTempRootOf(`${OWN}/bastion-cmd-xyz789`)).toBe(OWN);
  });

  it('is this user’s parent in the system temp dir for a private temp dir in no claimed root (an in-process host’s)', () => {
    expect(bastionTempParentOf('/tmp/bastion-cmd-xyz789')).toBe(`/tmp/bastion-${UID}`);
    expect(bastionTempParentOf('/var/tmp/x/bastion-sidecar-xyz789')).toBe(`/var/tmp/x/bastion-${UID}`);
    expect(claimedTempRootOf('/tmp/bastion-cmd-xyz789')).toBeUndefined();
    // A root-named directory outside a parent, or a short name in one, is no claimed root.
    expect(claimedTempRootOf('/tmp/bastion-host-00112233445566aa/bastion-cmd-xyz789')).toBeUndefined();
    expect(claimedTempRootOf(`${PARENT}/bastion-host-short/bastion-cmd-xyz789`)).toBeUndefined();
  });
});
