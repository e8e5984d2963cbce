import { lambdaEnvironment, runJob } from '../support/child';
import { type Scenario, scenarioEvent, scenarioLabel } from '../support/fixtures';
import type { WarmResult } from '../support/runner';
import { rotate, type Spread, spread } from '../support/stats';
import type { Case } from './cases';
import { competitors, type Mode, REFERENCE, say } from './subjects';

/** Warm calls: each case in a fresh process per mode and round, its per-call CPU time. */

export const modes: readonly Mode[] = ['sdk', 'send'];

const caseKey = (c: Pick<Case, 'subject' | 'scenario'>) => `${c.subject}|${c.scenario}`;
export const warmKey = (c: Pick<Case, 'subject' | 'scenario'>, mode: Mode) => `${caseKey(c)}|${mode}`;

export const baselineOf = (scenario: Scenario) => (scenario === 'get' ? REFERENCE : competitors[0].label);

export interface WarmFigures {
  /** Per-call CPU µs by `warmKey`, one per round. */
  readonly warm: ReadonlyMap<string, number[]>;
  /** Calls per invocation the recording did not hold, the most over the rounds, by `warmKey`. */
  readonly unmatched: ReadonlyMap<string, number>;
}

export const runWarm = async (
  runner: string,
  cases: readonly Case[],
  options: { readonly rounds: number; readonly measureMs: number },
): Promise<WarmFigures> => {
  const { rounds, measureMs } = options;
  const warm = new Map<string, number[]>();
  const unmatched = new Map<string, number>();
  const warmJobs = rounds * cases.reduce((total, c) => total + (c.modes ?? modes).length, 0);
  let done = 0;
  for (let round = 0; round < rounds; round++) {
    for (const mode of modes) {
      for (const c of rotate(cases, round)) {
        if (c.modes && !c.modes.includes(mode)) continue;
        const result = await runJob<WarmResult>(
          runner,
          {
            kind: 'warm',
            bundle: c.bundle[mode],
            mode,
            recording: c.recording,
            event: scenarioEvent(c.scenario),
            warmup: 200,
            measureMs,
            batch: 100,
          },
          lambdaEnvironment(),
        );
        const problem = c.check(result.response);
        if (problem) throw new Error(`${c.subject} ${scenarioLabel[c.scenario]} [${mode}]: ${problem}`);
        const key = warmKey(c, mode);
        warm.set(key, [...(warm.get(key) ?? []), result.perCallUs]);
        unmatched.set(key, Math.max(unmatched.get(key) ?? 0, result.unmatched));
        done++;
        say(
          `warm ${done}/${warmJobs} round ${round + 1} [${mode}] ${c.subject} ${scenarioLabel[c.scenario]}: ${result.perCallUs.toFixed(1)} µs`,
        );
      }
    }
  }
  return { warm, unmatched };
};

/** Per round, `a / b` of two warm figures measured in the same round. */
export const warmRatio = (warm: WarmFigures['warm'], a: string, b: string): Spread | undefined => {
  const x = warm.get(a);
  const y = warm.get(b);
  if (!x || !y) return undefined;
  return spread(x.map((value, round) => value / y[round]!));
};
