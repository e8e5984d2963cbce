/**
 * The command line of every npm script: `--help` (or `-h`) prints the script's usage and exits
 * before anything runs; an unknown option or a surplus argument is named, with the nearest known
 * one, and the script exits 2 having done nothing.
 */
import { type ParseArgsOptionsConfig, parseArgs } from 'node:util';

/** The closest of `candidates` to `word` when it is close enough to be a slip of the keyboard. */
export const nearest = (word: string, candidates: readonly string[]): string | undefined => {
  const distance = (a: string, b: string) => {
    let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
    for (let i = 1; i <= a.length; i++) {
      const current = [i];
      for (let j = 1; j <= b.length; j++)
        current[j] = Math.min(
          (previous[j] ?? 0) + 1,
          (current[j - 1] ?? 0) + 1,
          (previous[j - 1] ?? 0) + (a[i - 1]?.toLowerCase() === b[j - 1]?.toLowerCase() ? 0 : 1),
        );
      previous = current;
    }
    return previous[b.length] ?? Number.POSITIVE_INFINITY;
  };
  const ranked = candidates
    .map((candidate) => ({ candidate, distance: distance(word, candidate) }))
    .sort((a, b) => a.distance - b.distance);
  const best = ranked[0];
  return best && best.distance <= Math.max(2, Math.floor(word.length / 3)) ? best.candidate : undefined;
};

/** Prints why the command line was refused, then the usage, and exits 2. */
export const refuse = (command: string, problem: string, usage: string): never => {
  process.stderr.write(`${command}: ${problem}\n\n${usage.trimEnd()}\n`);
  process.exit(2);
};

export interface CommandLineSpec<O extends ParseArgsOptionsConfig> {
  /** As the user types it: `npm start`, `npm run invoke`. */
  readonly command: string;
  readonly usage: string;
  readonly options: O;
  /** How many arguments may follow the options (none unless said). */
  readonly positionals?: number;
  readonly args?: readonly string[];
}

export const readCommandLine = <O extends ParseArgsOptionsConfig>(spec: CommandLineSpec<O>) => {
  const args = [...(spec.args ?? process.argv.slice(2))];
  const end = args.indexOf('--');
  const flags = end < 0 ? args : args.slice(0, end);
  if (flags.includes('--help') || flags.includes('-h')) {
    process.stdout.write(`${spec.usage.trimEnd()}\n`);
    process.exit(0);
  }
  const known = Object.keys(spec.options);
  for (const arg of flags) {
    if (!arg.startsWith('-') || arg === '-') continue;
    const name = arg.replace(/^--?/, '').split('=')[0] ?? '';
    const short = !arg.startsWith('--');
    const matches = short ? Object.values(spec.options).some((option) => option.short === name) : known.includes(name);
    if (!matches) {
      const guess = nearest(name, known);
      refuse(spec.command, `unknown option ${arg}${guess ? `; did you mean --${guess}?` : ''}`, spec.usage);
    }
  }
  try {
    const parsed = parseArgs({ args, options: spec.options, allowPositionals: true, strict: true });
    const allowed = spec.positionals ?? 0;
    const extra = parsed.positionals[allowed];
    if (extra !== undefined) refuse(spec.command, `unexpected argument ${extra}`, spec.usage);
    return parsed;
  } catch (error) {
    return refuse(spec.command, (error as Error).message, spec.usage);
  }
};
