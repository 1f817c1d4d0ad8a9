import { useLayoutEffect, useState, type RefObject } from 'react';

/**
 * The first of `hints` (longest first) that fits on one line in `box`, or the last when none does
 * (CSS cuts it with an ellipsis): a narrow box shows a short hint whole rather than the start of a
 * long one ("Ask the agent… (@ for files, / for" at 400 px). Measured in the box's font with a
 * canvas, again whenever the box's width changes.
 */
export function useFittingPlaceholder(
  box: RefObject<HTMLTextAreaElement | null>,
  hints: string | readonly string[],
): string {
  const list = typeof hints === 'string' ? [hints] : hints;
  const [shown, setShown] = useState(0);
  const key = list.join('\n');
  useLayoutEffect(() => {
    const element = box.current;
    const context = document.createElement('canvas').getContext('2d');
    if (!element || !context) return;
    const choose = () => {
      const style = getComputedStyle(element);
      context.font = `${style.fontStyle} ${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
      const room = element.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
      const fitting = list.findIndex((hint) => context.measureText(hint).width <= room);
      setShown(fitting === -1 ? list.length - 1 : fitting);
    };
    choose();
    const observer = new ResizeObserver(choose);
    observer.observe(element);
    return () => observer.disconnect();
    // `key` stands for `list`, a new array at each render.
  }, [box, key]);
  return list[Math.min(shown, list.length - 1)] ?? '';
}
