/** Freeze an object graph (functions included), so nothing in it can be replaced or added to. */
export function deepFreeze<T extends object>(root: T): Readonly<T> {
  const seen = new Set<object>();
  const visit = (value: object) => {
    if (seen.has(value)) return;
    seen.add(value);
    for (const key of Reflect.ownKeys(value)) {
      const child = (value as Record<PropertyKey, unknown>)[key];
      if ((typeof child === 'object' && child !== null) || typeof child === 'function') visit(child);
    }
    Object.freeze(value);
  };
  visit(root);
  return root;
}
