import { appendFileSync } from 'node:fs';
import fc from 'fast-check';

/**
 * How the property tests run: a fixed seed and a few hundred cases in `npm test`; as many as
 * `npm run fuzz` asks for (scripts/fuzz.ts passes `FUZZ_SEED`, `FUZZ_RUNS`, `FUZZ_REPORT`).
 *
 * A property runs in two passes. The first runs every case, counting what each one broke instead
 * of stopping at the first (so that the figures of a long run are complete). If any case broke a
 * rule, the second pass replays the first such case (same seed, its path) and lets fast-check
 * shrink it to a minimal counterexample, which the failure then shows.
 */

/** The seed of `npm test`: the same cases on every run. */
export const DEFAULT_SEED = 900_4;

export interface FuzzSettings {
  readonly seed: number;
  /** About how many requests `npm run fuzz` asked for in all; undefined under `npm test`. */
  readonly runs: number | undefined;
  /** A file to append each property's figures to (one JSON line each). */
  readonly report: string | undefined;
}

export const fuzzSettings = (): FuzzSettings => {
  const seed = Number(process.env.FUZZ_SEED ?? DEFAULT_SEED);
  const runs = process.env.FUZZ_RUNS ? Number(process.env.FUZZ_RUNS) : undefined;
  if (!Number.isSafeInteger(seed)) throw new Error(`FUZZ_SEED must be an integer, not ${process.env.FUZZ_SEED}`);
  if (runs !== undefined && !(Number.isSafeInteger(runs) && runs > 0))
    throw new Error(`FUZZ_RUNS must be a positive integer, not ${process.env.FUZZ_RUNS}`);
  return { seed, runs, report: process.env.FUZZ_REPORT };
};

/** This property's runs: `share` of a fuzz run's total requests, or `inTests` under `npm test`. */
export const casesFor = (share: number, inTests: number, settings = fuzzSettings()) =>
  settings.runs === undefined ? inTests : Math.max(1, Math.ceil(settings.runs * share));

/** A rule a case broke: what, and the evidence (the request and what came back). */
export class Violation extends Error {
  override readonly name = 'Violation';
  constructor(
    /** Every rule the case broke (one case can leak and answer 500 at once). */
    readonly kinds: readonly ViolationKind[],
    message: string,
  ) {
    super(message);
  }
}

export type ViolationKind =
  | 'server error'
  | 'leak'
  | 'state change'
  | 'error object'
  | 'document'
  | 'model'
  | 'accepted'
  | 'fault handling';

export interface Figures {
  readonly property: string;
  /** Cases (requests, or commands of a sequence) generated and carried out in the first pass. */
  cases: number;
  /** Runs of the property (a run is one request, or one sequence of commands). */
  runs: number;
  requests: number;
  /** Answers of 500 or more but 503. */
  serverErrors: number;
  /** 503s (with Retry-After, or they broke a rule). */
  unavailable: number;
  leaks: number;
  stateChanges: number;
  /** Every broken rule of the first pass, by kind. */
  violations: Partial<Record<ViolationKind, number>>;
  /** Runs that broke a rule. */
  failedRuns: number;
  failures: { seed: number; path: string; counterexample: string; error: string }[];
  /** The first few distinct problems of the first pass (by their first line of problems), each with its evidence. */
  examples: string[];
  /** Faults the proxy injected, by kind (fault sequences only). */
  faults?: Record<string, number>;
  durationMs: number;
}

export const newFigures = (property: string): Figures => ({
  property,
  cases: 0,
  runs: 0,
  requests: 0,
  serverErrors: 0,
  unavailable: 0,
  leaks: 0,
  stateChanges: 0,
  violations: {},
  failedRuns: 0,
  failures: [],
  examples: [],
  durationMs: 0,
});

export const countViolation = (figures: Figures, violation: Violation) => {
  for (const kind of violation.kinds) {
    figures.violations[kind] = (figures.violations[kind] ?? 0) + 1;
    if (kind === 'leak') figures.leaks += 1;
    if (kind === 'state change') figures.stateChanges += 1;
  }
};

export interface PropertyRun<T> {
  readonly figures: Figures;
  readonly arbitrary: fc.Arbitrary<T>;
  /** One case; throws a Violation when it breaks a rule (anything else thrown is a defect of the test). */
  readonly check: (value: T, pass: 'count' | 'shrink') => Promise<void>;
  readonly numRuns: number;
  readonly settings?: FuzzSettings;
  /** Completes the figures before they are reported (such as the faults a proxy injected). */
  readonly finish?: (figures: Figures) => void;
}

/** Runs a property in the two passes described above; throws with the minimal counterexample if any case broke a rule. */
export const runProperty = async <T>({
  figures,
  arbitrary,
  check,
  numRuns,
  settings = fuzzSettings(),
  finish,
}: PropertyRun<T>) => {
  const started = Date.now();
  const report = (figures: Figures, settings: FuzzSettings) => {
    finish?.(figures);
    reportFigures(figures, settings);
  };
  let firstFailure: number | undefined;
  let index = 0;
  const counting = await fc.check(
    fc.asyncProperty(arbitrary, async (value) => {
      const run = index++;
      figures.runs += 1;
      try {
        await check(value, 'count');
      } catch (error) {
        if (!(error instanceof Violation)) throw error;
        countViolation(figures, error);
        const shown = noteExample(figures, error);
        // A long run shows each new kind of problem as it meets it, not only at its end.
        if (shown && settings.runs !== undefined)
          process.stderr.write(`${figures.property}, run ${run}: ${error.message.slice(0, 3000)}\n\n`);
        figures.failedRuns += 1;
        firstFailure ??= run;
      }
      if (settings.runs !== undefined) progress(figures, numRuns, started);
    }),
    { seed: settings.seed, numRuns, endOnFailure: true },
  );
  if (counting.failed) {
    // Not a broken rule but a defect of the test itself (it threw something else): show it as it is.
    figures.durationMs = Date.now() - started;
    report(figures, settings);
    throw new Error(fc.defaultReportMessage(counting) ?? 'The property test itself failed.');
  }
  if (firstFailure !== undefined) {
    const shrinking = await fc.check(
      fc.asyncProperty(arbitrary, (value) => check(value, 'shrink')),
      // Shrinking replays sequences many times: it stops at its time limit with the smallest case found by then.
      {
        seed: settings.seed,
        path: String(firstFailure),
        numRuns: 1,
        endOnFailure: false,
        interruptAfterTimeLimit: SHRINK_LIMIT_MS,
      },
    );
    figures.failures.push({
      seed: settings.seed,
      path: shrinking.counterexamplePath ?? String(firstFailure),
      counterexample: shrinking.failed ? fc.stringify(shrinking.counterexample) : '(did not fail again on replay)',
      error: shrinking.failed ? errorText(shrinking.errorInstance) : '',
    });
    figures.durationMs = Date.now() - started;
    report(figures, settings);
    throw new Error(
      `${figures.failedRuns} of ${figures.runs} runs of "${figures.property}" broke a rule (${JSON.stringify(figures.violations)}).\n` +
        (shrinking.failed
          ? `${fc.defaultReportMessage(shrinking) ?? ''}\n\n${errorText(shrinking.errorInstance)}`
          : `Run ${firstFailure} (seed ${settings.seed}) did not fail again when replayed.`) +
        `\n\nDistinct problems of the first pass:\n\n${figures.examples.join('\n\n────────\n\n')}`,
    );
  }
  figures.durationMs = Date.now() - started;
  report(figures, settings);
};

/** How long shrinking a counterexample may take. */
const SHRINK_LIMIT_MS = 180_000;

/** A line about every tenth of a long run (fuzz runs only), so that a run of many minutes shows it is alive. */
const progress = (figures: Figures, numRuns: number, started: number) => {
  if (figures.runs % Math.ceil(numRuns / 10) !== 0) return;
  process.stderr.write(
    `${figures.property}: ${figures.runs}/${numRuns} runs, ${figures.requests} requests, ${figures.failedRuns} failed, ${Math.round((Date.now() - started) / 1000)} s\n`,
  );
};

const MAX_EXAMPLES = 12;
const seenProblems = new WeakMap<Figures, Set<string>>();

/** Keeps an example of each distinct problem (its first problem line, without numbers and quoted values). */
const noteExample = (figures: Figures, violation: Violation) => {
  const seen = seenProblems.get(figures) ?? seenProblems.set(figures, new Set()).get(figures) ?? new Set();
  const first = violation.message.split('\n').find((line) => line.startsWith('- ')) ?? violation.message;
  const signature = first.replace(/`[^`]*`|"[^"]*"|\d+/g, '_');
  if (seen.has(signature) || figures.examples.length >= MAX_EXAMPLES) return false;
  seen.add(signature);
  figures.examples.push(violation.message.slice(0, 3000));
  return true;
};

const errorText = (error: unknown) => (error instanceof Error ? error.message : String(error));

const reportFigures = (figures: Figures, settings: FuzzSettings) => {
  if (settings.report) appendFileSync(settings.report, `${JSON.stringify(figures)}\n`);
};
