import { readCommandLine, refuse } from '../../scripts/support/cli';

/** `npm run bench`'s options (bench/calls.ts), read and checked: `--help` prints the usage and runs nothing. */
const usage = `Usage: npm run bench [-- options]

Bundles every function (npm run bundle: sizes in bench/results/bundle.md), then measures warm
calls, cold starts and source maps of the API beside the reference handler and four other ways of
writing it, as ratios within one run; then what each request costs in dollars (its DynamoDB
request units, folds and change events metered on DynamoDB Local, and its warm CPU time). About
15 minutes here; bench/results/calls.{md,json} and cost.{md,json} are written only when it
completes.

Options (defaults in brackets):
  --before DIR      also measure the API of another checkout, for before/after ratios   [none]
  --rounds N        rounds, each interleaving every case                                 [3]
  --measure-ms N    time per warm measurement                                            [300]
  --cold-runs N     fresh processes per subject and round for cold starts                [3]
  --help            this text; runs nothing
`;

export const benchOptions = () => {
  const { values } = readCommandLine({
    command: 'npm run bench',
    usage,
    options: {
      before: { type: 'string' },
      rounds: { type: 'string', default: '3' },
      'measure-ms': { type: 'string', default: '300' },
      'cold-runs': { type: 'string', default: '3' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const positive = (name: string, text: string) => {
    const value = Number(text);
    if (!Number.isInteger(value) || value < 1)
      refuse('npm run bench', `--${name} ${text} is not a positive integer`, usage);
    return value;
  };
  return {
    before: values.before,
    rounds: positive('rounds', values.rounds),
    measureMs: positive('measure-ms', values['measure-ms']),
    coldRuns: positive('cold-runs', values['cold-runs']),
  };
};
