import { readFileSync, statSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { LIST_LIMIT, scenarioLabel } from '../support/fixtures';
import { fixed, median, ratioText, type Spread, table } from '../support/stats';
import type { Case } from './cases';
import {
  type ColdFigures,
  type ColdRuns,
  type ColdSubject,
  coldRatio,
  cursorKeySubject,
  firstInvocation,
  perRound,
  sourceMapKeys,
} from './cold';
import type { PairRow } from './paired';
import { REFERENCE, type Subjects, type Tree } from './subjects';
import { baselineOf, modes, type WarmFigures, warmKey, warmRatio } from './warm';

/** bench/results/calls.md: the targets, the warm table, cold starts and source maps. */
/** list-magazines with its cursor key read from Secrets Manager against the same with the key in its environment. */
const cursorKeyFigures = ({
  trees,
  cold,
  subjects,
}: {
  trees: readonly Tree[];
  cold: ColdRuns;
  subjects: Subjects;
}) => {
  const now = trees[0]!;
  const secret = cursorKeySubject(now);
  const environment = `${now.label} list-magazines`;
  const figures = [
    ['import (init phase)', (f: ColdFigures) => f.importMs],
    ['import + first call', firstInvocation],
  ] as const;
  return {
    rows: figures.map(([what, figure]) => [
      `${what}, CPU ms`,
      fixed(median(perRound(cold, environment, figure)), 2),
      fixed(median(perRound(cold, secret, figure)), 2),
      ratioText(coldRatio(cold, secret, environment, figure)),
    ]),
    firstInvocation: coldRatio(cold, secret, environment, firstInvocation),
    clientKib: (
      (statSync(subjects.secretsClient.with).size - statSync(subjects.secretsClient.without).size) /
      1024
    ).toFixed(1),
  };
};

export const callsReport = (figures: {
  readonly trees: readonly Tree[];
  readonly cases: readonly Case[];
  readonly warm: WarmFigures;
  readonly pairRows: readonly PairRow[];
  readonly coldSubjects: readonly ColdSubject[];
  readonly cold: ColdRuns;
  readonly subjects: Subjects;
  readonly rounds: number;
  readonly measureMs: number;
  readonly coldRuns: number;
}): string => {
  const { trees, cases, warm, pairRows, coldSubjects, cold, subjects, rounds, measureMs, coldRuns } = figures;
  const kib = (file: string) => (readFileSync(file).length / 1024).toFixed(1);
  const gzipKib = (file: string) => (gzipSync(readFileSync(file)).length / 1024).toFixed(1);
  const now = trees[0]!;
  const beforeTree = trees[1];

  const warmRows = cases
    .filter((c) => c.modes?.length !== 0)
    .map((c) => {
      const baseline = { subject: baselineOf(c.scenario), scenario: c.scenario };
      return [
        c.subject,
        scenarioLabel[c.scenario],
        ...modes.flatMap((mode) => [
          fixed(median(warm.warm.get(warmKey(c, mode)) ?? [])),
          ratioText(warmRatio(warm.warm, warmKey(c, mode), warmKey(baseline, mode))),
        ]),
      ];
    });

  const targetRows: string[][] = [];
  const target = (what: string, ratio: Spread | undefined, bound: number, text: string) => {
    const met =
      ratio === undefined ? '—' : ratio.median <= bound ? (ratio.max <= bound ? 'met' : 'met (median)') : 'missed';
    targetRows.push([what, text, ratioText(ratio), met]);
  };
  for (const row of pairRows) {
    if (row.bound === undefined) targetRows.push([row.what, row.text, ratioText(row.ratio), '']);
    else target(row.what, row.ratio, row.bound, row.text);
  }
  const nowGet = `${now.label} get-magazine`;
  target(
    'first invocation (import + first call), get-magazine / reference',
    coldRatio(cold, nowGet, REFERENCE, firstInvocation),
    1.25,
    '≤ 1.25',
  );
  target(
    'first invocation (import + first call), list-magazines / reference',
    coldRatio(cold, `${now.label} list-magazines`, REFERENCE, firstInvocation),
    1.35,
    '≤ 1.35',
  );
  const cursorKey = cursorKeyFigures(figures);
  targetRows.push([
    'first invocation, list-magazines: cursor key from Secrets Manager / key in the environment',
    'no DynamoDB-sized cost (issue 20)',
    ratioText(cursorKey.firstInvocation),
    '',
  ]);
  if (beforeTree)
    targetRows.push([
      '(before) first invocation, get-magazine / reference',
      'was 1.16',
      ratioText(coldRatio(cold, `${beforeTree.label} get-magazine`, REFERENCE, firstInvocation)),
      '',
    ]);

  const coldRows = coldSubjects.map((subject) => {
    const rounds1 = (figure: (f: ColdFigures) => number[]) => median(perRound(cold, subject.label, figure));
    return [
      subject.label,
      kib(subject.bundle),
      gzipKib(subject.bundle),
      fixed(rounds1((f) => f.importMs)),
      fixed(rounds1((f) => f.firstCallMs)),
      fixed(rounds1(firstInvocation)),
      ratioText(coldRatio(cold, subject.label, REFERENCE, firstInvocation)),
      fixed(
        rounds1((f) => f.secondCallMs),
        2,
      ),
      `${fixed(
        rounds1((f) => f.firstCallMs.map((ms, i) => ms / f.secondCallMs[i]!)),
        0,
      )}×`,
    ];
  });

  const sm = (key: string, figure: (f: ColdFigures) => number[]) => median(perRound(cold, key, figure));
  const sourceMapRows = [
    ['import', (f: ColdFigures) => f.importMs],
    ['first call', (f: ColdFigures) => f.firstCallMs],
    ['import + first call', firstInvocation],
    ['first error (stack logged)', (f: ColdFigures) => f.firstErrorMs],
    ['later errors, each', (f: ColdFigures) => f.warmErrorMs],
  ] as const;
  const sourceMapTable = table(
    ['get-magazine (this tree)', 'off, CPU ms', 'on, CPU ms', 'on / off'],
    sourceMapRows.map(([what, figure]) => [
      what,
      fixed(sm(sourceMapKeys.off, figure), 2),
      fixed(sm(sourceMapKeys.on, figure), 2),
      ratioText(coldRatio(cold, sourceMapKeys.on, sourceMapKeys.off, figure)),
    ]),
  );
  const referenceSourceMaps = ratioText(coldRatio(cold, sourceMapKeys.refOn, sourceMapKeys.refOff, firstInvocation));
  const unmatchedCases = [...warm.unmatched]
    .filter(([, n]) => n > 0)
    .map(([key, n]) => `${key.replaceAll('|', ' ')}: ${n.toFixed(2)}`);

  return [
    '# Handlers: warm calls, cold starts, source maps',
    '',
    `Generated by \`npm run bench\` on ${new Date().toISOString()}, Node ${process.versions.node} (${process.arch}), ${rounds} rounds; every ratio is the median over the rounds (min–max), each round's figures measured side by side. Times are the CPU time of the process (user + system): the machine is shared, and waiting for a core is not cost.`,
    beforeTree
      ? `"Before" is ${beforeTree.label}: its functions bundled from its own sources with the same settings and dependencies, seeded and recorded the same way.`
      : 'No `--before`: no before/after ratios.',
    '',
    '## Targets (issues 10 and 19)',
    '',
    `Warm ratios here are paired: both cases in one fresh process, batches of 50 calls alternated (A B B A…) for ${measureMs} ms each, so that the machine's load weighs on both alike, each batch charged its main thread's CPU with the garbage collected before it off the clock (the reference against itself bundled again checks the instrument); one job per pair and round, median over the rounds (min–max). The side-by-side table below measures each case in a process of its own, and is noisier. The "+" rows are list-magazines of this tree with one piece of avoidable work put back (see below).`,
    '',
    table(['what', 'target', 'measured', ''], targetRows, ['l', 'l', 'r', 'l']),
    '',
    '## Warm per-call cost',
    '',
    `A fresh process per case and round; ${measureMs} ms of calls after 200 warm-up calls. \`[sdk]\`: DynamoDB answered in process under the SDK (it resolves, serialises, signs and parses; no socket). \`[send]\`: answered at the document client's \`send\`. The API's answers are its own calls as recorded against DynamoDB Local (${LIST_LIMIT} of 30 magazines, 2 tags each), and every response is checked against the one DynamoDB Local gave; competitors make one call (GetItem, Query, PutItem). Ratios: GET one to the reference handler, the others to the bare handler.`,
    '',
    table(['subject', 'operation', '[sdk] CPU µs', '[sdk] ratio', '[send] CPU µs', '[send] ratio'], warmRows, [
      'l',
      'l',
      'r',
      'r',
      'r',
      'r',
    ]),
    '',
    `The two "API list +" rows are list-magazines of this tree with one piece of avoidable work put back (source patched at bundling, see \`variants\` in bench/calls/subjects.ts): a 6 MB guard that serialises every item again to estimate the page's size, and the SDK's logger middleware, which the API removes from its client. Their ratios to the list as it is are in the targets table. "API GET one without its metrics line" is get-magazine with a feature taken out rather than waste put back: the EMF line every request writes (issue 11), to show its share of a GET beside the reference, which writes nothing.`,
    '',
    unmatchedCases.length > 0
      ? `Calls the recording did not hold, answered as on an empty table (per call): ${unmatchedCases.join('; ')}. A write folds counters one time in four, which the recorded write did not.`
      : 'Every call was answered from the recording.',
    '',
    '## Cold start',
    '',
    `A fresh \`node\` per figure (${coldRuns} per subject and round; median per round), Lambda's environment, no \`NODE_OPTIONS\` (as deployed), DynamoDB answered in process (\`[sdk]\`): the SDK's set-up is measured, the network is not. "First call" is the first invocation after the import (init-phase calls, such as the API's head read, are in the import). First invocation = import + first call; its ratio is to the reference handler's.`,
    '',
    table(
      [
        'bundle',
        'KiB',
        'gzip KiB',
        'import CPU ms',
        'first call CPU ms',
        'import + first',
        'ratio',
        'second call CPU ms',
        'first / second',
      ],
      coldRows,
    ),
    '',
    '## The cursor key from Secrets Manager',
    '',
    `As deployed, a list function reads its cursor key from Secrets Manager in its init phase, beside the table's first read (shared/cursor-key.ts); Secrets Manager is answered in process here as DynamoDB is (\`[sdk]\`: the client is made, resolves credentials and its endpoint, signs, sends and parses). "${cursorKeySubject(now)}" against the same bundle given the key in \`CURSOR_KEY\`, in the same rounds:`,
    '',
    table(
      [
        'list-magazines (this tree)',
        'key in the environment',
        'key from Secrets Manager',
        'Secrets Manager / environment',
      ],
      cursorKey.rows,
    ),
    '',
    `The Secrets Manager client and what only it uses: ${cursorKey.clientKib} KiB of the list bundle's ${kib(subjects.secretsClient.with)} KiB (minified; the bundle with a stub in its place is ${kib(subjects.secretsClient.without)} KiB). Not measured: the call's round trip to Secrets Manager, which the init phase waits for only where it is slower than the table's first read, made at the same time.`,
    '',
    '## `NODE_OPTIONS=--enable-source-maps`',
    '',
    `The deployed get-magazine without and with the flag, cold, then one invocation whose item is corrupt (500, the error's stack logged) and ten more like it. The reference handler's first invocation with the flag: ${referenceSourceMaps} of without.`,
    '',
    sourceMapTable,
    '',
  ].join('\n');
};
