/** Figures of the benchmarks: medians, spreads over rounds, and how they print. */

export const median = (values: readonly number[]) => {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

export const percentile = (values: readonly number[], p: number) => {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
};

export interface Spread {
  readonly min: number;
  readonly median: number;
  readonly max: number;
}

export const spread = (values: readonly number[]): Spread => ({
  min: Math.min(...values),
  median: median(values),
  max: Math.max(...values),
});

/** `1.23× (1.20–1.27)`: a ratio's median over the rounds, and its min and max. */
export const ratioText = (ratio: Spread | undefined) =>
  ratio === undefined || Number.isNaN(ratio.median)
    ? '—'
    : `${ratio.median.toFixed(2)}× (${ratio.min.toFixed(2)}–${ratio.max.toFixed(2)})`;

export const fixed = (value: number | undefined, digits = 1) =>
  value === undefined || Number.isNaN(value) ? '—' : value.toFixed(digits);

/** A Markdown table. */
export const table = (
  header: readonly string[],
  rows: readonly (readonly string[])[],
  align?: readonly ('l' | 'r')[],
) =>
  [
    `| ${header.join(' | ')} |`,
    `|${header.map((_, i) => ((align?.[i] ?? (i === 0 ? 'l' : 'r')) === 'r' ? '---:' : '---')).join('|')}|`,
    ...rows.map((row) => `| ${row.join(' | ')} |`),
  ].join('\n');

/** The same order of cases in no round twice in a row: a busy moment of the machine weighs on every case alike. */
export const rotate = <T>(items: readonly T[], round: number): T[] => {
  const shift = (round * 7) % Math.max(1, items.length);
  const rotated = [...items.slice(shift), ...items.slice(0, shift)];
  return round % 2 ? rotated.reverse() : rotated;
};
