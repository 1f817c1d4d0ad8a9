import { describe, expect, it } from 'vitest';
import { closestName, editDistance } from './closest-name.js';

const COMMANDS = [
  'start',
  'doctor',
  'run',
  'chat',
  'open',
  'secrets',
  'policy',
  'undo',
  'rewind',
  'changes',
  'sessions',
];

describe('editDistance', () => {
  it('counts insertions, deletions, substitutions and a swap of neighbours as one edit each', () => {
    expect(editDistance('policy', 'policy')).toBe(0);
    expect(editDistance('polcy', 'policy')).toBe(1);
    expect(editDistance('policyy', 'policy')).toBe(1);
    expect(editDistance('polixy', 'policy')).toBe(1);
    expect(editDistance('strat', 'start')).toBe(1);
    expect(editDistance('', 'run')).toBe(3);
    expect(editDistance('kitten', 'sitting')).toBe(3);
  });
});

describe('closestName', () => {
  it('suggests the command a typo most likely meant', () => {
    expect(closestName('polcy', COMMANDS)).toBe('policy');
    expect(closestName('strat', COMMANDS)).toBe('start');
    expect(closestName('sesions', COMMANDS)).toBe('sessions');
    expect(closestName('rn', COMMANDS)).toBe('run');
    expect(closestName('lst', ['list', 'add', 'remove', 'audit'])).toBe('list');
    expect(closestName('--jsn', ['--json', '--home', '--workspace'])).toBe('--json');
  });

  it('suggests the only name a prefix begins, and nothing for an ambiguous prefix', () => {
    expect(closestName('rew', COMMANDS)).toBe('rewind');
    expect(closestName('ch', COMMANDS)).toBeUndefined();
  });

  it('suggests nothing for a word no name is near', () => {
    expect(closestName('deploy', COMMANDS)).toBeUndefined();
    expect(closestName('x', COMMANDS)).toBeUndefined();
  });
});
