import { Fragment } from 'react';
import { shellWord } from '@bastion/protocol';

/**
 * SEC-004: a command's argv as the person deciding on it must read it — every argument its own
 * bounded chip holding it as a shell word (protocol's `shellWord`, the same words the CLI's prompt
 * shows), separated by single spaces, so the text copies back as the command line. An argument
 * with spaces is quoted in one chip; newlines, tabs, controls, bidi overrides and isolates,
 * zero-width and other non-ASCII characters show as `\n`, `\t`, `\u202e`…, so a script after a `#`
 * on its next line, text reordered by an override or two arguments passing for one cannot hide.
 * The approval prompt, the host's question and the tool card all show an argv through this.
 */
export function CommandWords({ argv, className }: { argv: readonly string[]; className?: string }) {
  return (
    <span className={className === undefined ? 'command-words' : `command-words ${className}`}>
      {argv.map((word, index) => (
        <Fragment key={index}>
          {index > 0 && ' '}
          <code className="command-word">{shellWord(word)}</code>
        </Fragment>
      ))}
    </span>
  );
}
