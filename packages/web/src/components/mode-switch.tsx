import type { PermissionMode, ReasoningEffort } from '@bastion/bridge';
import { isAltShiftKey, MODE_CYCLE_KEY } from '../shortcut-keys.js';
import { Dialog } from './dialog.js';

interface Props {
  mode: PermissionMode;
  disabled: boolean;
  /** read-only or accept-edits chosen. */
  onChange: (mode: PermissionMode) => void;
  /** auto chosen: it needs informed consent first (AutoConsentDialog). */
  onAskAuto: () => void;
}

/** Each mode as the Mode list names it, in its order. */
export const MODE_LABELS: Readonly<Record<PermissionMode, string>> = {
  'read-only': 'read-only: changes nothing',
  'accept-edits': 'accept-edits: edits files, asks before other changes',
  auto: 'auto: runs everything',
};

/**
 * The key in the message box that switches the mode (MODE_CYCLE_KEY; help lists it). Not
 * Shift+Tab, which a keyboard user needs to move back out of the box.
 */
export function isModeCycleKey(event: KeyboardEvent): boolean {
  return isAltShiftKey(event, MODE_CYCLE_KEY);
}

/** The modes Alt+Shift+M in the message box goes through, in turn; `auto` is not one: it asks for consent first. */
const CYCLED_MODES: readonly PermissionMode[] = ['read-only', 'accept-edits'];

/** The mode Alt+Shift+M switches `mode` to (from `auto`, the first of the cycle: leaving auto asks nothing). */
export function cycledMode(mode: PermissionMode): PermissionMode {
  return CYCLED_MODES[(CYCLED_MODES.indexOf(mode) + 1) % CYCLED_MODES.length] ?? 'read-only';
}

/** read-only ↔ accept-edits ↔ auto. */
export function ModeSwitch({ mode, disabled, onChange, onAskAuto }: Props) {
  return (
    <div className="mode-switch">
      <label htmlFor="mode">Mode</label>
      <select
        id="mode"
        value={mode}
        disabled={disabled}
        title={`${MODE_CYCLE_KEY.name} in the message box switches read-only ↔ accept-edits`}
        onChange={(event) => {
          const next = event.target.value as PermissionMode;
          if (next === 'auto') onAskAuto();
          else onChange(next);
        }}
      >
        {Object.entries(MODE_LABELS).map(([value, label]) => (
          <option key={value} value={value}>
            {label}
          </option>
        ))}
      </select>
    </div>
  );
}

/** The informed consent `auto` needs, from the Mode select or `/mode auto`. */
export function AutoConsentDialog({
  mode,
  onCancel,
  onConsent,
}: {
  /** The session's mode now, which declining keeps. */
  mode: PermissionMode;
  onCancel: () => void;
  onConsent: () => void;
}) {
  return (
    <Dialog title="Let the agent run every command?" onCancel={onCancel}>
      <p>In auto mode the agent runs any command without asking you first:</p>
      <ul>
        <li>it can change, create and delete files in your workspace;</li>
        <li>
          it can run interpreters and scripts (for example <code>bash -c</code> or <code>python3 -c</code>);
        </li>
        <li>
          the sandbox still keeps it inside the workspace, away from your home folder&apos;s secrets and off the network
          — but it does not judge intent.
        </li>
      </ul>
      <p>Bastion records that you consented and when. You can switch back at any time.</p>
      <div className="dialog-actions">
        <button type="button" onClick={onCancel} autoFocus>
          Keep {mode}
        </button>
        <button type="button" className="danger" onClick={onConsent}>
          I understand, switch to auto
        </button>
      </div>
    </Dialog>
  );
}

const EFFORTS: readonly { value: ReasoningEffort; label: string }[] = [
  { value: 'low', label: 'low (faster)' },
  { value: 'medium', label: 'medium' },
  { value: 'high', label: 'high (slower)' },
];

/** How much a reasoning model thinks: the model's own default, or low, medium or high. */
export function ReasoningSwitch({
  effort,
  disabled,
  onChange,
}: {
  effort: ReasoningEffort | undefined;
  disabled: boolean;
  /** null: back to the model's default. */
  onChange: (effort: ReasoningEffort | null) => void;
}) {
  return (
    <div className="mode-switch">
      <label htmlFor="reasoning">Reasoning</label>
      <select
        id="reasoning"
        value={effort ?? ''}
        disabled={disabled}
        onChange={(event) => onChange(event.target.value === '' ? null : (event.target.value as ReasoningEffort))}
      >
        <option value="">model default</option>
        {EFFORTS.map((option) => (
          <option key={option.value} value={option.value}>
            {option.label}
          </option>
        ))}
      </select>
    </div>
  );
}
