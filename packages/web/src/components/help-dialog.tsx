import type { SlashCommand } from '../slash-commands.js';
import {
  MESSAGE_BOX_KEY,
  MODE_CYCLE_KEY,
  NEW_SESSION_KEY,
  NEXT_SESSION_KEY,
  SESSION_LIST_KEY,
  PREVIOUS_SESSION_KEY,
  PROMPT_FOCUS_KEY,
  type AltShiftKey,
} from '../shortcut-keys.js';
import { Dialog } from './dialog.js';

const named = (key: AltShiftKey) => `${key.name} (${key.mac})`;

const KEYS: readonly (readonly [string, string])[] = [
  ['Enter', 'send the message (while a run goes: queue it for when the run finishes)'],
  ['Shift+Enter', 'start a new line'],
  ['Esc', 'stop the run (or close a list)'],
  [
    named(MODE_CYCLE_KEY),
    'switch the mode: read-only ↔ accept-edits (auto asks first: use the Mode list or /mode auto)',
  ],
  [named(PROMPT_FOCUS_KEY), 'go to the question waiting for your answer; Tab then reaches Allow and Deny'],
  ['↑ in an empty box', 'bring back your last prompt'],
  ['@', 'name a file or folder of the workspace'],
  ['Ctrl+V (⌘V)', 'attach a copied screenshot or image (or drop one on the box, or use the paper clip)'],
  ['/', 'list these commands'],
  ['Ctrl+F (⌘F)', 'find in this session, older turns not on screen too (Enter: next, Shift+Enter: previous)'],
  [named(NEW_SESSION_KEY), 'start a new session (this key and the next four act anywhere but in another text field)'],
  [named(NEXT_SESSION_KEY), 'open the next session in the list (the one below)'],
  [named(PREVIOUS_SESSION_KEY), 'open the previous session in the list (the one above)'],
  [named(MESSAGE_BOX_KEY), 'go to the message box'],
  [named(SESSION_LIST_KEY), 'show the session list, or fold it away (as Sessions at the top does)'],
];

/** The keys (the message box's, then the page's) and the slash commands (saved prompts in a line after them), from `/help`. */
export function HelpDialog({ commands, onClose }: { commands: readonly SlashCommand[]; onClose: () => void }) {
  return (
    <Dialog title="Keys and commands" onCancel={onClose} wide openAtTop>
      <table className="help-table">
        <caption className="visually-hidden">Keys</caption>
        <tbody>
          {KEYS.map(([key, what]) => (
            <tr key={key}>
              <th scope="row">
                <kbd>{key}</kbd>
              </th>
              <td>{what}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <table className="help-table">
        <caption className="visually-hidden">Commands</caption>
        <tbody>
          {commands.map((command) => (
            <tr key={command.name}>
              <th scope="row">
                <code>{command.name}</code>
              </th>
              <td>{command.description}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <p>
        Your saved prompts follow these as <code>/NAME</code> (a Markdown file <code>NAME.md</code> in the prompts
        folder of Bastion’s data folder; Settings lists them): choosing one puts its text in the box, and nothing is
        sent until you press Enter again.
      </p>
      <div className="dialog-actions">
        <button type="button" onClick={onClose}>
          Close
        </button>
      </div>
    </Dialog>
  );
}
