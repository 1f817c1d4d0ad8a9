import { describe, expect, it } from 'vitest';
import { bastionTempReadDenies, claimedTempRootOf } from './bastion-temp-denies.js';

const PARENT = '/tmp/bastion-1000';
const OWN = `${PARENT}/bastion-host-00112233445566aa`;

describe('bastionTempReadDenies', () => {
  it('denies the parent of every claimed root (this host’s, other hosts’, later ones’) for a command or server in a claimed root', () => {
    expect(bastionTempReadDenies(`${OWN}/bastion-cmd-xyz789`)).toEqual([PARENT]);
    expect(bastionTempReadDenies(`${OWN}/bastion-mcp-xyz789`)).toEqual([PARENT]);
    expect(claimedTempRootOf(`${OWN}/bastion-cmd-xyz789`)).toBe(OWN);
  });

  it('denies nothing for a private temp dir in no claimed root, nor in a root-named directory outside a parent', () => {
    expect(bastionTempReadDenies('/tmp/bastion-cmd-xyz789')).toEqual([]);
    expect(bastionTempReadDenies('/tmp/bastion-host-00112233445566aa/bastion-cmd-xyz789')).toEqual([]);
    expect(bastionTempReadDenies(`${PARENT}/bastion-host-short/bastion-cmd-xyz789`)).toEqual([]);
  });
});
