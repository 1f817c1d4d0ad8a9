import { useEffect, useRef, type ReactNode } from 'react';

/** A modal built on <dialog>: focus moves in, Escape cancels, focus returns when it closes; `wide` for a table. */
export function Dialog({
  title,
  children,
  onCancel,
  wide = false,
}: {
  title: string;
  children: ReactNode;
  onCancel: () => void;
  wide?: boolean;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const dialog = ref.current;
    const previous = document.activeElement as HTMLElement | null;
    dialog?.showModal();
    return () => {
      dialog?.close();
      previous?.focus();
    };
  }, []);
  return (
    <dialog
      ref={ref}
      className={wide ? 'dialog dialog-wide' : 'dialog'}
      aria-labelledby="dialog-title"
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
