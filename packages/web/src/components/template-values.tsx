import { useState, type KeyboardEvent } from 'react';
import { describeError } from '../bastion.js';

interface Props {
  /** `SERVER:TEMPLATE`, as the @ menu showed it. */
  word: string;
  /** The template's variables, each asked for in turn. */
  variables: readonly string[];
  /** Read the resource the template expands to with these values; rejected with why it was refused. */
  onAttach: (values: Record<string, string>) => Promise<void>;
  /** Esc or Cancel: back to the message box, nothing attached. */
  onCancel: () => void;
}

/**
 * An MCP server's resource template chosen in the @ menu, its variables asked of the person in
 * place of the menu: one field each, Enter (or Attach) has the host expand and read it, Esc (or
 * Cancel) goes back to the box. What the host refuses (a value too long, a binary or too large
 * resource) is said here, the values kept.
 */
export function TemplateValues({ word, variables, onAttach, onCancel }: Props) {
  const [values, setValues] = useState<Record<string, string>>(() =>
    Object.fromEntries(variables.map((name) => [name, ''])),
  );
  const [reading, setReading] = useState(false);
  const [problem, setProblem] = useState<string>();
  const missing = variables.find((name) => (values[name] ?? '') === '');
  const attach = () => {
    if (reading) return;
    if (missing !== undefined) {
      setProblem(`Type a value for ${missing}.`);
      return;
    }
    setReading(true);
    setProblem(undefined);
    onAttach(values).then(
      () => setReading(false),
      (failure: unknown) => {
        setReading(false);
        setProblem(`@${word}: ${describeError(failure)}`);
      },
    );
  };
  const key = (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.key === 'Escape') {
      event.preventDefault();
      onCancel();
    } else if (event.key === 'Enter' && !event.nativeEvent.isComposing) {
      event.preventDefault();
      attach();
    }
  };
  return (
    <div className="list-menu template-values" role="group" aria-label={`Values for @${word}`}>
      <div className="list-heading muted">
        Fill in <code>@{word}</code> · Enter attaches it, Esc goes back
      </div>
      {variables.map((name, index) => (
        <label key={name} className="template-variable">
          <span>{name}</span>
          <input
            type="text"
            value={values[name] ?? ''}
            // The field the person chose the template for: typing goes here at once.
            autoFocus={index === 0}
            spellCheck={false}
            autoComplete="off"
            onChange={(event) => setValues({ ...values, [name]: event.target.value })}
            onKeyDown={key}
          />
        </label>
      ))}
      {problem !== undefined && (
        <p className="composer-note template-problem" role="alert">
          {problem}
        </p>
      )}
      <div className="template-actions">
        <button type="button" className="primary" disabled={reading} onClick={attach}>
          {reading ? 'Reading…' : 'Attach'}
        </button>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </div>
  );
}
