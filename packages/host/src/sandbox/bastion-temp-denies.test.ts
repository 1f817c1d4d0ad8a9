import { describe, expect, it } from 'vitest';
import { bastionTempReadDenies, type ListDirectory } from './bastion-temp-denies.js';

const OWN = '/tmp/bastion-host-00112233445566aa';
const OTHER = '/tmp/bastion-host-ffeeddccbbaa9988';

function listing(entries: Array<[string, boolean]>): ListDirectory {
  return () => entries.map(([name, directory]) => ({ name, isDirectory: () => directory }));
}

describe('bastionTempReadDenies', () => {
  it('denies its own claimed root and every other bastion-host directory in the system temp dir', () => {
    const list = listing([
      ['bastion-host-00112233445566aa', true],
      ['bastion-host-ffeeddccbbaa9988', true],
      ['bastion-cmd-abc123', true],
      ['workspace', true],
    ]);
    expect(bastionTempReadDenies(`${OWN}/bastion-cmd-xyz789`, list)).toEqual([OWN, OTHER]);
  });

  it('denies its own root even when the listing misses it', () => {
    expect(bastionTempReadDenies(`${OWN}/bastion-mcp-xyz789`, listing([]))).toEqual([OWN]);
  });

  it('skips a symbolic link and names that are not exactly a host root', () => {
    const list = listing([
      ['bastion-host-ffeeddccbbaa9988', false],
      ['bastion-host-short', true],
      ['bastion-host-00112233445566aa-x', true],
    ]);
    expect(bastionTempReadDenies(`${OWN}/bastion-cmd-xyz789`, list)).toEqual([OWN]);
  });

  it('denies nothing for a private temp dir in no claimed root, without listing anything', () => {
    const list: ListDirectory = () => {
      throw new Error('listed');
    };
    expect(bastionTempReadDenies('/tmp/bastion-cmd-xyz789', list)).toEqual([]);
  });

  it('throws when the system temp dir cannot be listed, so the command is refused', () => {
    const list: ListDirectory = () => {
      throw Object.assign(new Error('EACCES'), { code: 'EACCES' });
    };
    expect(() => bastionTempReadDenies(`${OWN}/bastion-cmd-xyz789`, list)).toThrow('EACCES');
  });
});
