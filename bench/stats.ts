// Small statistics the benches share.

/** The middle value of `xs` (the upper middle of an even count): the figure of repeated runs. */
export const median = (xs: readonly number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
