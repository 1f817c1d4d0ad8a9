/** The `code` of what `fn` throws, or undefined when it does not throw. */
export function thrownCode(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    return (error as { code?: string }).code;
  }
  return undefined;
}
