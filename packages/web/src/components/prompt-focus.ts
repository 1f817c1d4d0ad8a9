import { useEffect, useRef } from 'react';

/**
 * The refs of a question's region and its Allow button: when the question first shows, the region
 * scrolls into view and Allow takes focus, so a question is never answered blind or missed.
 */
export function usePromptFocus() {
  const region = useRef<HTMLElement>(null);
  const allow = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    region.current?.scrollIntoView({ block: 'nearest' });
    allow.current?.focus();
  }, []);
  return { region, allow };
}
