import { useEffect, useRef, type ReactNode } from 'react';

/** A modal built on <dialog>: focus moves in, Escape cancels, focus returns when it closes; `wide` for a table. */
export function Dialog({
  title,
  children,
  onCancel,
  wide = false,
  openAtTop = false,
  className,
}: {
  title: string;
  children: ReactNode;
  onCancel: () => void;
  wide?: boolean;
  /**
   * Focus goes to the dialog itself, not its first control: a dialog to read (taller than the
   * window) opens at its top, not scrolled to a button at its end. Tab then reaches its controls.
   */
  openAtTop?: boolean;
  /** A class of the dialog's own, beside `dialog`. */
  className?: string;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const dialog = ref.current;
    const previous = document.activeElement as HTMLElement | null;
    dialog?.showModal();
    // showModal focused the first control, scrolling the dialog to it: the focus and the view go back to the top.
    if (openAtTop && dialog) {
      dialog.focus();
      dialog.scrollTop = 0;
    }
    return () => {
      dialog?.close();
      previous?.focus();
    };
    // Once, as it opens: a dialog does not change how it opens while open.
  }, []);
  return (
    <dialog
      ref={ref}
      className={['dialog', wide ? 'dialog-wide' : '', className ?? ''].filter(Boolean).join(' ')}
      aria-labelledby="dialog-title"
      tabIndex={openAtTop ? -1 : undefined}
      onCancel={(event) => {
        event.preventDefault();
        onCancel();
      }}
    >
      <h2 id="dialog-title">{title}</h2>
      {children}
    </dialog>
  );
}

/**
 * The end of a confirmation: why it failed (`failure`, after `failedAs`, e.g. "Not undone"), then
 * Cancel (Close once it failed) and, while it can still go ahead, the action (`action`).
 */
export function ConfirmActions({
  failure,
  failedAs,
  onClose,
  action,
}: {
  failure: string | undefined;
  failedAs: string;
  onClose: () => void;
  action: { label: string; disabled: boolean; onClick: () => void } | undefined;
}) {
  return (
    <>
      {failure && (
        <p className="undo-failure" role="alert">
          {failedAs}: {failure}
        </p>
      )}
      <div className="dialog-actions">
        <button type="button" onClick={onClose} autoFocus>
          {failure ? 'Close' : 'Cancel'}
        </button>
        {action && !failure && (
          <button type="button" className="danger" disabled={action.disabled} onClick={action.onClick}>
            {action.label}
          </button>
        )}
      </div>
    </>
  );
}
