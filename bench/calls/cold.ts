import type { Recording } from '../support/answers';
import { lambdaEnvironment, runJob } from '../support/child';
import {
  competitorRecording,
  type Scenario,
  scenarioEvent,
  secretEnvironment,
  withSecretRead,
} from '../support/fixtures';
import type { ColdResult } from '../support/runner';
import { median, rotate, spread } from '../support/stats';
import { type RecordedScenario, recordingKey } from './record';
import { competitors, FUNCTION_OF, REFERENCE, type Subjects, say, type Tree } from './subjects';

/** Cold starts: a fresh `node` per figure, import and first invocations timed, DynamoDB answered in process. */

export interface ColdSubject {
  readonly label: string;
  readonly bundle: string;
  readonly recording: Recording;
  readonly scenario: Scenario;
  /** Set in Lambda's environment besides its usual variables. */
  readonly env?: Readonly<Record<string, string>>;
}

export interface ColdFigures {
  importMs: number[];
  firstCallMs: number[];
  secondCallMs: number[];
  firstErrorMs: number[];
  warmErrorMs: number[];
}

/** The subject that reads its cursor key from Secrets Manager, answered in process as DynamoDB is. */
export const cursorKeySubject = (tree: Tree) => `${tree.label} list-magazines, cursor key from Secrets Manager`;

export const coldSubjectsOf = (
  subjects: Subjects,
  trees: readonly Tree[],
  recordings: ReadonlyMap<string, RecordedScenario>,
): ColdSubject[] => {
  const coldSubjects: ColdSubject[] = [
    { label: REFERENCE, bundle: subjects.reference.sdk, recording: competitorRecording('get'), scenario: 'get' },
  ];
  for (const tree of trees)
    for (const scenario of ['get', 'listJson', 'post'] as const)
      coldSubjects.push({
        label: `${tree.label} ${FUNCTION_OF[scenario]}`,
        bundle:
          tree.key === 'now'
            ? subjects.deployed(FUNCTION_OF[scenario])
            : subjects.treeBundles.get(tree.key)![FUNCTION_OF[scenario]]!.sdk,
        recording: recordings.get(recordingKey(tree.key, scenario))!.recording,
        scenario,
      });
  // As deployed, a list function reads its cursor key from Secrets Manager while it starts; the
  // subject above is given the key in its environment, as before the key became a secret.
  coldSubjects.push({
    label: cursorKeySubject(trees[0]!),
    bundle: subjects.deployed('list-magazines'),
    recording: withSecretRead(recordings.get(recordingKey('now', 'listJson'))!.recording),
    scenario: 'listJson',
    env: secretEnvironment,
  });
  for (const competitor of competitors)
    coldSubjects.push({
      label: competitor.label,
      bundle: subjects.competitorBundles.get(competitor.key)!.sdk,
      recording: competitorRecording('get'),
      scenario: 'get',
    });
  return coldSubjects;
};

/** A copy of a recording whose items lack `title`: the decoder refuses them, the handler answers 500 and logs the stack. */
const corrupted = (recording: Recording): Recording => ({
  init: recording.init,
  invocation: recording.invocation.map((call) => ({
    ...call,
    response: call.response.replace(/"title":\{"S":"[^"]*"\},?/g, '').replace(/,\}/g, '}'),
  })),
});

export const sourceMapKeys = {
  off: 'source maps off',
  on: 'source maps on',
  refOff: 'reference, source maps off',
  refOn: 'reference, source maps on',
};

/** Figures by subject label (and `sourceMapKeys`), one entry per round. */
export type ColdRuns = ReadonlyMap<string, ColdFigures[]>;

export const runCold = async (
  runner: string,
  coldSubjects: readonly ColdSubject[],
  sourceMapped: ColdSubject,
  options: { readonly rounds: number; readonly coldRuns: number },
): Promise<ColdRuns> => {
  const { rounds, coldRuns } = options;
  const cold = new Map<string, ColdFigures[]>();
  const coldOnce = async (
    key: string,
    subject: ColdSubject,
    round: number,
    env: Record<string, string>,
    failing?: Recording,
  ) => {
    const figures = cold.get(key) ?? [];
    cold.set(key, figures);
    figures[round] ??= { importMs: [], firstCallMs: [], secondCallMs: [], firstErrorMs: [], warmErrorMs: [] };
    const now = figures[round];
    const result = await runJob<ColdResult>(
      runner,
      {
        kind: 'cold',
        bundle: subject.bundle,
        recording: subject.recording,
        event: scenarioEvent(subject.scenario),
        ...(failing && { failing, errors: 10 }),
      },
      env,
    );
    const wanted = subject.scenario === 'post' ? 201 : 200;
    if (result.response.statusCode !== wanted)
      throw new Error(`${subject.label} cold: ${result.response.statusCode} ${result.response.body.slice(0, 200)}`);
    if (failing && result.errorResponse?.statusCode !== 500)
      throw new Error(`${subject.label}: the corrupt item gave ${result.errorResponse?.statusCode}, not 500`);
    now.importMs.push(result.importMs);
    now.firstCallMs.push(result.firstCallMs);
    now.secondCallMs.push(result.secondCallMs);
    if (result.firstErrorMs !== undefined) now.firstErrorMs.push(result.firstErrorMs);
    if (result.warmErrorMs !== undefined) now.warmErrorMs.push(result.warmErrorMs);
  };

  const failing = corrupted(sourceMapped.recording);
  const coldJobs = rounds * coldRuns * (coldSubjects.length + 4);
  let done = 0;
  for (let round = 0; round < rounds; round++) {
    for (let run = 0; run < coldRuns; run++) {
      for (const subject of rotate(coldSubjects, round + run)) {
        await coldOnce(subject.label, subject, round, lambdaEnvironment(subject.env));
        say(`cold ${++done}/${coldJobs} round ${round + 1} ${subject.label}`);
      }
      const options = '--enable-source-maps';
      await coldOnce(sourceMapKeys.off, sourceMapped, round, lambdaEnvironment(), failing);
      await coldOnce(sourceMapKeys.on, sourceMapped, round, lambdaEnvironment({ NODE_OPTIONS: options }), failing);
      await coldOnce(sourceMapKeys.refOff, coldSubjects[0]!, round, lambdaEnvironment());
      await coldOnce(sourceMapKeys.refOn, coldSubjects[0]!, round, lambdaEnvironment({ NODE_OPTIONS: options }));
      done += 4;
      say(`cold ${done}/${coldJobs} round ${round + 1} source maps`);
    }
  }
  return cold;
};

/** Per round, the median over its fresh processes of a figure. */
export const perRound = (cold: ColdRuns, key: string, figure: (f: ColdFigures) => number[]) =>
  (cold.get(key) ?? []).map((round) => median(figure(round)));

export const firstInvocation = (f: ColdFigures) => f.importMs.map((ms, i) => ms + f.firstCallMs[i]!);

export const coldRatio = (cold: ColdRuns, a: string, b: string, figure: (f: ColdFigures) => number[]) => {
  const x = perRound(cold, a, figure);
  const y = perRound(cold, b, figure);
  return spread(x.map((value, round) => value / y[round]!));
};
