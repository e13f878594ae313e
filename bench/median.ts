/** The median of `values` (the lower middle one of an even count), as the benches report their rounds. */
export const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)];
