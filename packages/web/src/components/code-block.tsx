import type { ReactNode } from 'react';
import { UI_HIGHLIGHT_MAX_CHARS } from '@bastion/protocol';
import { CopyButton } from './copy-button.js';

/**
 * A fenced code block of the agent's text: its language (or "code") and a copy button above the
 * code. `plain` is code shown without highlighting (past UI_HIGHLIGHT_MAX_CHARS): the head says
 * so, and the box keeps to a height of its own and scrolls, so a long one is passed in a flick.
 */
export function CodeBlock({
  language,
  copyText,
  plain = false,
  children,
}: {
  language: string | undefined;
  copyText: string;
  plain?: boolean;
  children: ReactNode;
}) {
  return (
    <div className={plain ? 'code-block code-block-plain' : 'code-block'}>
      <div className="code-head">
        <span>{language ?? 'code'}</span>
        {plain && (
          <span className="code-note">
            Not highlighted: this reply has over {UI_HIGHLIGHT_MAX_CHARS / 1024} KiB of code
          </span>
        )}
        <CopyButton text={copyText} />
      </div>
      <pre tabIndex={plain ? 0 : undefined}>{children}</pre>
    </div>
  );
}
