/** Every value of every query parameter, in the order sent (`?a=1&a=2` has two values of `a`). */
export function queryValues(query: string): Record<string, string[]> {
  // No prototype: a parameter named `__proto__` or `constructor` is a parameter like any other.
  const values: Record<string, string[]> = Object.create(null);
  if (!query) return values;
  for (const [name, value] of new URLSearchParams(query)) {
    if (Object.hasOwn(values, name)) values[name].push(value);
    else values[name] = [value];
  }
  return values;
}
