/**
 * The session's "ask before each file edit" switch (`ask_before_writes`): on, every write_file and
 * edit_file waits for an Allow in the approval prompt, whatever the mode. In read-only nothing is
 * written, so the switch has nothing to do there and is shown off and disabled.
 */
import type { PermissionMode } from '@bastion/bridge';

interface Props {
  checked: boolean;
  mode: PermissionMode;
  disabled: boolean;
  onChange: (checked: boolean) => void;
}

export function AskBeforeWrites({ checked, mode, disabled, onChange }: Props) {
  const readOnly = mode === 'read-only';
  return (
    <label
      className="ask-before-writes"
      title={
        readOnly
          ? 'Read-only sessions change no files'
          : 'Every write_file and edit_file waits for your Allow, in any mode'
      }
    >
      <input
        type="checkbox"
        checked={checked && !readOnly}
        disabled={disabled || readOnly}
        onChange={(event) => onChange(event.target.checked)}
      />
      Ask before file edits
    </label>
  );
}
