/** The value after a flag on the command line (`--rounds 3` → `'3'`). */
export const option = (name: string): string | undefined => {
  const index = process.argv.indexOf(name);
  return index > 0 ? process.argv[index + 1] : undefined;
};

/** A positive integer flag, or its default. */
export const count = (name: string, fallback: number): number => {
  const value = Number(option(name) ?? fallback);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} needs a positive integer`);
  return value;
};
