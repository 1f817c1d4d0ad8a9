import { useState } from 'react';

/**
 * A button that puts `text` on the clipboard and says for a moment whether that worked; `name`,
 * when given, is what assistive technology calls it (e.g. "Copy stdout" where it shows "Copy").
 */
export function CopyButton({ text, label = 'Copy', name }: { text: string; label?: string; name?: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  return (
    <button
      type="button"
      aria-label={name}
      className="small copy-button"
      onClick={() => {
        navigator.clipboard.writeText(text).then(
          () => setState('copied'),
          () => setState('failed'),
        );
        window.setTimeout(() => setState('idle'), 1_500);
      }}
    >
      {state === 'copied' ? 'Copied' : state === 'failed' ? 'Copy failed' : label}
    </button>
  );
}
