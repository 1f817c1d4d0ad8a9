import { useCallback, useEffect, useLayoutEffect, useRef, useState } from 'react';
import { UI_APPROVAL_ANSWER_GUARD_MS } from '@bastion/protocol';
import { isAltShiftKey, PROMPT_FOCUS_KEY } from '../shortcut-keys.js';

/**
 * SEC-004, type-ahead: a question (the agent's approval, the host's own) shows while the person
 * may still be typing their next message, or about to click what was in its place. So focus is
 * never moved to its buttons: it stays where it is (the composer keeps what is typed), and only
 * a page whose focus is nowhere gives it to the question's region, which holds no answer.
 * Alt+Shift+A takes focus to the region, and Tab reaches the buttons from there (or Shift+Tab from
 * the composer). `answering` wraps each answer: for UI_APPROVAL_ANSWER_GUARD_MS after the question
 * shows, or after another takes its place (`questionId`), an activation is ignored, and `armed`
 * (false meanwhile) marks the buttons aria-disabled. The CLI's prompt throws away keys typed in
 * its first moments the same way (CLI_APPROVAL_TYPE_AHEAD_DISCARD_MS).
 *
 * What it does not catch: a key or click made on purpose after the window, on a question not
 * read; the region is scrolled into view and announced ("Waiting for your approval") for that.
 */
export function usePromptFocus(questionId: string) {
  const region = useRef<HTMLElement>(null);
  const { armed, answering } = useAnswerGuard(questionId);
  useLayoutEffect(() => {
    region.current?.scrollIntoView({ block: 'nearest' });
    const focused = document.activeElement;
    if (focused === null || focused === document.body) region.current?.focus({ preventScroll: true });
  }, [questionId]);
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      // Two questions at once: the first one shown takes it.
      if (!isAltShiftKey(event, PROMPT_FOCUS_KEY) || event.defaultPrevented) return;
      event.preventDefault();
      region.current?.focus();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);
  return { region, armed, answering };
}

/**
 * The type-ahead guard alone: for UI_APPROVAL_ANSWER_GUARD_MS after `shownId` first shows (or
 * changes), an answer `answering` wraps does nothing and `armed` is false. usePromptFocus guards a
 * question's answers with it; "Always allow…"'s Save, which takes focus as it opens, with its own.
 */
export function useAnswerGuard(shownId: string) {
  const shownAt = useRef(0);
  const [armed, setArmed] = useState(false);
  // A layout effect runs before the browser can dispatch an event at the new buttons.
  useLayoutEffect(() => {
    shownAt.current = performance.now();
    setArmed(false);
    const timer = window.setTimeout(() => setArmed(true), UI_APPROVAL_ANSWER_GUARD_MS);
    return () => window.clearTimeout(timer);
  }, [shownId]);
  const answering = useCallback(
    (answer: () => void) => () => {
      if (performance.now() - shownAt.current < UI_APPROVAL_ANSWER_GUARD_MS) return;
      answer();
    },
    [],
  );
  return { armed, answering };
}
