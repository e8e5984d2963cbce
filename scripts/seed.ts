/**
 * `npm run seed`: loads the sample data (local/sample-data.ts) through the API of a running
 * `npm start`, as a client would. `npm start -- --seed` does the same as it starts.
 */
import { loadSampleData, sampleMagazines } from '../local/sample-data';
import { readCommandLine, refuse } from './support/cli';

const usage = `Usage: npm run seed [-- --url URL]

Loads ${sampleMagazines.length} magazines from 2018 to 2025 across eight tags, with articles, through the API
(PUT of each magazine, POST of its articles with an Idempotency-Key): running it again changes
nothing. Start the API first (npm start), or use npm start -- --seed.

Options:
  --url URL   the API to load                   [http://127.0.0.1:3000, or PORT's]
  --help      this text; runs nothing
`;

const { values } = readCommandLine({
  command: 'npm run seed',
  usage,
  options: { url: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
});
const url = (values.url ?? `http://127.0.0.1:${process.env.PORT || '3000'}`).replace(/\/$/, '');
if (!/^https?:\/\//.test(url)) refuse('npm run seed', `--url ${url} is not an http(s) URL`, usage);

try {
  const made = await loadSampleData(url);
  process.stdout.write(`Loaded ${made.magazines} magazines and ${made.articles} articles into ${url}\n`);
} catch (error) {
  const cause = (error as { cause?: { code?: string } }).cause?.code;
  process.stderr.write(
    cause === 'ECONNREFUSED'
      ? `npm run seed: nothing answers at ${url}; start the API with npm start (or give --url).\n`
      : `npm run seed: ${error instanceof Error ? error.message : String(error)}\n`,
  );
  process.exit(1);
}
