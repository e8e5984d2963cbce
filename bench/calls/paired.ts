import { lambdaEnvironment, runJob } from '../support/child';
import { type Scenario, scenarioEvent, scenarioLabel } from '../support/fixtures';
import type { PairedResult } from '../support/runner';
import { rotate, type Spread, spread } from '../support/stats';
import type { Case } from './cases';
import { type Mode, REFERENCE, REFERENCE_AGAIN, say, type Tree, variantLabel } from './subjects';
import { modes } from './warm';

/** The targets' warm ratios: both cases of a pair in one process, their batches alternated. */

interface Pair {
  readonly what: string;
  readonly mode: Mode;
  /** Numerator and denominator. */
  readonly cases: readonly [Case, Case];
  /** The target (at most), or none for a figure shown beside one. */
  readonly bound?: number;
  readonly text: string;
}

export type PairRow = Pair & { readonly ratio: Spread };

const pairsOf = (cases: readonly Case[], trees: readonly Tree[]): Pair[] => {
  const thisTree = trees[0]!;
  const otherTree = trees[1];
  const caseOf = (subject: string, scenario: Scenario) => {
    const found = cases.find((c) => c.subject === subject && c.scenario === scenario);
    if (!found) throw new Error(`No case ${subject} ${scenario}.`);
    return found;
  };
  const pairs: Pair[] = [];
  for (const mode of modes) {
    const nowList = caseOf(thisTree.label, 'listJson');
    pairs.push(
      // `[send]` weighs ~100 µs of handler work against a 7 µs reference, which no user sees beside
      // an SDK call and a round trip: its figures are information, the targets are `[sdk]`'s.
      mode === 'sdk'
        ? {
            what: `GET one / reference [${mode}]`,
            mode,
            cases: [caseOf(thisTree.label, 'get'), caseOf(REFERENCE, 'get')],
            bound: 1.1,
            text: '≤ 1.10',
          }
        : {
            what: `GET one / reference [${mode}]`,
            mode,
            cases: [caseOf(thisTree.label, 'get'), caseOf(REFERENCE, 'get')],
            text: 'information (no target)',
          },
      {
        what: `list XML / list JSON [${mode}]`,
        mode,
        cases: [caseOf(thisTree.label, 'listXml'), nowList],
        ...(mode === 'sdk' ? { bound: 1.3, text: '≤ 1.30' } : { text: 'information (no target)' }),
      },
    );
    if (otherTree)
      pairs.push(
        {
          what: `list JSON, now / before [${mode}]`,
          mode,
          cases: [nowList, caseOf(otherTree.label, 'listJson')],
          text: 'nothing measurable worse (≤ 1.00)',
        },
        {
          what: `(before) list XML / list JSON [${mode}]`,
          mode,
          cases: [caseOf(otherTree.label, 'listXml'), caseOf(otherTree.label, 'listJson')],
          text: 'was 1.6',
        },
        {
          what: `(before) GET one / reference [${mode}]`,
          mode,
          cases: [caseOf(otherTree.label, 'get'), caseOf(REFERENCE, 'get')],
          text: '',
        },
      );
    pairs.push({
      what: `list JSON + 6 MB guard / list JSON [${mode}]`,
      mode,
      cases: [caseOf(variantLabel('guard'), 'listJson'), nowList],
      text: 'was 55 of 147 µs (1.6×)',
    });
    pairs.push(
      {
        what: `GET one without its metrics line / reference [${mode}]`,
        mode,
        cases: [caseOf(variantLabel('no-metrics'), 'get'), caseOf(REFERENCE, 'get')],
        text: 'a feature taken out (issue 11)',
      },
      {
        what: `GET one without its metrics line / GET one [${mode}]`,
        mode,
        cases: [caseOf(variantLabel('no-metrics'), 'get'), caseOf(thisTree.label, 'get')],
        text: "1 − the metrics line's share of a GET",
      },
    );
  }
  pairs.push({
    what: 'reference / reference bundled again [sdk]',
    mode: 'sdk',
    cases: [caseOf(REFERENCE, 'get'), caseOf(REFERENCE_AGAIN, 'get')],
    text: 'the instrument: one code in two bundles (≈ 1.00)',
  });
  pairs.push({
    what: 'list JSON + SDK logger middleware / list JSON [sdk]',
    mode: 'sdk',
    cases: [caseOf(variantLabel('logger'), 'listJson'), caseOf(thisTree.label, 'listJson')],
    text: 'was 14 % of a list call (1.16×)',
  });
  return pairs;
};

export const runPaired = async (
  runner: string,
  cases: readonly Case[],
  trees: readonly Tree[],
  options: { readonly rounds: number; readonly measureMs: number },
): Promise<PairRow[]> => {
  const { rounds, measureMs } = options;
  const pairs = pairsOf(cases, trees);
  const pairRatios = new Map<string, number[]>();
  const pairJobs = rounds * pairs.length;
  let done = 0;
  for (let round = 0; round < rounds; round++)
    for (const pair of rotate(pairs, round)) {
      const arm = (c: Case) => ({
        bundle: c.bundle[pair.mode],
        recording: c.recording,
        event: scenarioEvent(c.scenario),
      });
      const result = await runJob<PairedResult>(
        runner,
        {
          kind: 'paired',
          mode: pair.mode,
          arms: [arm(pair.cases[0]), arm(pair.cases[1])],
          warmup: 200,
          measureMs,
          batch: 50,
        },
        lambdaEnvironment(),
      );
      for (const [i, c] of pair.cases.entries()) {
        const problem = c.check(result.responses[i]!);
        if (problem) throw new Error(`${pair.what}, ${c.subject} ${scenarioLabel[c.scenario]}: ${problem}`);
      }
      const ratio = result.perCallUs[0] / result.perCallUs[1];
      pairRatios.set(pair.what, [...(pairRatios.get(pair.what) ?? []), ratio]);
      say(`paired ${++done}/${pairJobs} round ${round + 1} ${pair.what}: ${ratio.toFixed(2)}`);
    }
  return pairs.map((pair) => ({ ...pair, ratio: spread(pairRatios.get(pair.what) ?? []) }));
};
