import { DaemonError } from '../errors.js';

/** One page of a listing; `next` is the cursor of the page after it, null at the end. */
export interface Page<T> {
  items: T[];
  next: string | null;
}

/** A listing's cursor (a row number it gave as `next`) as a number; `start` when there is none. */
export function cursorPosition(cursor: string | undefined, start: number): number {
  const position = cursor === undefined ? start : Number(cursor);
  if (!Number.isSafeInteger(position)) throw new DaemonError('BAD_CURSOR', 'cursor is not valid');
  return position;
}
