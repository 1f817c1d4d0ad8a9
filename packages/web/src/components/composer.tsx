import { useLayoutEffect, useRef } from 'react';
import { UI_COMPOSER_MAX_HEIGHT_PX } from '@bastion/protocol';

interface Props {
  draft: string;
  onDraft: (text: string) => void;
  onSend: () => void;
  onStop: () => void;
  /** A run is going or an approval waits: Stop is shown (and Esc stops). */
  stoppable: boolean;
  sendDisabled: boolean;
  placeholder: string;
  autoFocus: boolean;
  /** The last prompt sent in this session, which ArrowUp puts in an empty box; undefined before any. */
  lastPrompt: string | undefined;
}

/**
 * The message box: grows with its text up to a bound, Enter sends, Shift+Enter breaks a line, Esc
 * stops, ArrowUp in an empty box brings back the last prompt.
 */
export function Composer({
  draft,
  onDraft,
  onSend,
  onStop,
  stoppable,
  sendDisabled,
  placeholder,
  autoFocus,
  lastPrompt,
}: Props) {
  const ref = useRef<HTMLTextAreaElement>(null);
  useLayoutEffect(() => {
    const box = ref.current;
    if (!box) return;
    box.style.height = 'auto';
    box.style.height = `${Math.min(box.scrollHeight, UI_COMPOSER_MAX_HEIGHT_PX)}px`;
  }, [draft]);
  useLayoutEffect(() => {
    if (autoFocus) ref.current?.focus();
  }, [autoFocus]);
  return (
    <form
      className="composer"
      onSubmit={(event) => {
        event.preventDefault();
        onSend();
      }}
    >
      <label htmlFor="composer-input" className="visually-hidden">
        Message
      </label>
      <textarea
        id="composer-input"
        ref={ref}
        value={draft}
        rows={1}
        placeholder={placeholder}
        onChange={(event) => onDraft(event.target.value)}
        onKeyDown={(event) => {
          if (event.key === 'ArrowUp' && draft === '' && lastPrompt !== undefined) {
            event.preventDefault();
            onDraft(lastPrompt);
            return;
          }
          if (event.key === 'Enter' && !event.shiftKey && !event.nativeEvent.isComposing) {
            event.preventDefault();
            if (!sendDisabled) onSend();
          }
        }}
      />
      <div className="composer-actions">
        {stoppable && (
          <button type="button" className="danger" onClick={onStop} title="Stop (Esc)">
            Stop
          </button>
        )}
        <button type="submit" className="primary" disabled={sendDisabled}>
          Send
        </button>
      </div>
    </form>
  );
}
