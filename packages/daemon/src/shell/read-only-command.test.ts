import { describe, expect, it } from 'vitest';
import { isReadOnlyCommand } from './read-only-command.js';

const readOnly: [string, string[]][] = [
  ['ls', []],
  ['ls', ['-la', 'src']],
  ['pwd', []],
  ['echo', ['hello', 'world']],
  ['cat', ['README.md']],
  ['head', ['-n', '5', 'a.txt']],
  ['tail', ['-n', '5', 'a.txt']],
  ['wc', ['-l', 'a.txt']],
  ['grep', ['-rn', 'TODO', '.']],
  ['find', ['.', '-name', '*.ts', '-type', 'f']],
  ['find', ['.', '-print0']],
  ['rg', ['-n', 'needle']],
  ['rg', ['--pre-glob', '*.gz', 'needle']],
  ['git', ['status']],
  ['git', ['log', '--oneline', '-n', '5']],
  ['git', ['diff', 'HEAD~1']],
  ['git', ['show', 'HEAD']],
  ['git', ['ls-files']],
  ['git', ['rev-parse', 'HEAD']],
  ['git', ['blame', 'README.md']],
];

const asks: [string, string, string[]][] = [
  ['find -exec', 'find', ['.', '-exec', 'rm', '{}', ';']],
  ['find -execdir', 'find', ['.', '-execdir', 'sh', '-c', 'x', ';']],
  ['find -ok', 'find', ['.', '-ok', 'rm', '{}', ';']],
  ['find -okdir', 'find', ['.', '-okdir', 'rm', '{}', ';']],
  ['find -delete', 'find', ['.', '-name', '*.o', '-delete']],
  ['find -fprint', 'find', ['.', '-fprint', 'out.txt']],
  ['find -fprint0', 'find', ['.', '-fprint0', 'out.txt']],
  ['find -fprintf', 'find', ['.', '-fprintf', 'out.txt', '%p']],
  ['find -fls', 'find', ['.', '-fls', 'out.txt']],
  ['rg --pre', 'rg', ['--pre', './evil.sh', 'needle']],
  ['rg --pre=', 'rg', ['--pre=./evil.sh', 'needle']],
  ['rg --hostname-bin', 'rg', ['--hostname-bin', './evil.sh', 'needle']],
  ['rg --hostname-bin=', 'rg', ['--hostname-bin=./evil.sh', 'needle']],
  ['git -c before the subcommand', 'git', ['-c', 'core.pager=sh', 'log']],
  ['git -c after the subcommand', 'git', ['log', '-c', 'core.pager=sh']],
  ['git -c with value attached', 'git', ['log', '-ccore.pager=sh']],
  ['git --exec-path', 'git', ['log', '--exec-path=/tmp/x']],
  ['git --git-dir', 'git', ['log', '--git-dir', '/elsewhere/.git']],
  ['git --git-dir=', 'git', ['status', '--git-dir=/elsewhere/.git']],
  ['git --work-tree', 'git', ['status', '--work-tree', '/elsewhere']],
  ['git --upload-pack', 'git', ['log', '--upload-pack=evil']],
  ['git --receive-pack', 'git', ['log', '--receive-pack', 'evil']],
  ['git -o', 'git', ['diff', '-o', 'out.patch']],
  ['git --output', 'git', ['diff', '--output', 'out.patch']],
  ['git --output=', 'git', ['log', '--output=out.patch']],
  ['git global option before the subcommand', 'git', ['--no-pager', 'log']],
  ['git -C another directory', 'git', ['-C', '/elsewhere', 'status']],
  ['git mutating subcommand', 'git', ['commit', '-m', 'x']],
  ['git checkout', 'git', ['checkout', '.']],
  ['git with no subcommand', 'git', []],
  ['sh', 'sh', ['-c', 'ls']],
  ['bash', 'bash', ['-c', 'ls']],
  ['python3', 'python3', ['-c', 'print(1)']],
  ['node', 'node', ['-e', '1']],
  ['perl', 'perl', ['-e', '1']],
  ['env', 'env', ['ls']],
  ['xargs', 'xargs', ['rm']],
  ['touch', 'touch', ['x']],
  ['rm', 'rm', ['-rf', '.']],
  ['./ls (path-shaped)', './ls', []],
  ['/bin/ls (path-shaped)', '/bin/ls', []],
  ['/usr/bin/cat (path-shaped)', '/usr/bin/cat', ['a']],
  ['bin/git (path-shaped)', 'bin/git', ['status']],
  ['name with trailing space', 'ls ', []],
  ['upper-case name', 'LS', []],
];

describe('isReadOnlyCommand', () => {
  it.each(readOnly)('runs %s %j without asking', (command, args) => {
    expect(isReadOnlyCommand(command, args)).toBe(true);
  });

  it.each(asks)('asks for %s', (_name, command, args) => {
    expect(isReadOnlyCommand(command, args)).toBe(false);
  });
});
