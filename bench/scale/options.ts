import { readCommandLine } from '../../scripts/support/cli';

/** `npm run bench:scale`'s options, read and checked: `--help` prints the usage and runs nothing. */

const whole = (name: string, text: string, least = 0): number => {
  const value = Number(text);
  if (!Number.isInteger(value) || value < least) {
    process.stderr.write(`--${name}: ${text} is not a whole number of at least ${least}\n`);
    process.exit(2);
  }
  return value;
};
const wholes = (name: string, text: string, least = 0) => text.split(',').map((part) => whole(name, part, least));

const usage = `Usage: npm run bench:scale [-- options]

Loads a collection through the API (POST /magazines from concurrent HTTP clients against the local
server, on DynamoDB Local behind a counting proxy) and reports, per list query, the DynamoDB calls,
KB read and read units of one page and its latency: sampled while the writers run, and after they
stop (at each --quiet point); the pending count items over time; /tags after many distinct tags;
the articles of one magazine; 64 concurrent POSTs under emulated transaction conflicts.

Options (defaults in brackets):
  --size N               magazines in all, loaded in one phase per --writers entry   [100000]
  --writers A,B          concurrent writers of each phase, in order                   [24,64]
  --topics N             topics the magazines' tags are drawn from                    [50]
  --tags N               tags per magazine, out of --topics                           [2]
  --articles N           articles of one magazine, POSTed before the phases (0: none) [5000]
  --article-writers N    concurrent writers of those articles                         [4]
  --distinct-tags A,B    distinct tags in use to reach through POSTs of new tags, each
                         measured on /tags (100000 takes long: add it by hand)        [10000]
  --new-tags N           new tags per POST in that part                               [4]
  --scattered-tags       new tag ids that start with a digest, as unrelated names sort,
                         rather than following the magazine's id (few blocks of TAGS)
  --uuid-ids             magazine ids as the API makes them when a client gives none
                         (UUIDs), rather than short ones a client chose (m-1234)
  --quiet A,B,C          seconds after the writers stop at which pages are measured    [0,5,15]
  --repeats N            requests per page at each of those points (median latency)   [3]
  --sample-pause-ms N    pause between two samples while writers run                  [250]
  --conflict-rounds N    rounds of 64 concurrent POSTs under emulated conflicts
                         (distinct magazines, then all tagged news; 0: none)          [3]
  --direct N             also write N magazines straight into another table (the
                         repository's bulk path, no API) and measure its pages: a
                         comparison, never the figure (0: none)                       [0]
  --tree DIR             measure the API of another checkout (its npm start)          [this tree]
  --name NAME            results in bench/results/NAME.{md,json,svg}, written only
                         when the run completes (until then: dist/bench-partial/)    [scale]
  --help                 this text; runs nothing

The default run takes 10 to 15 minutes here when DynamoDB Local takes 100-300 transactions a
second; each part's time is in the output. The writers stop at nothing: an answer other than 201
is counted, reported, and looked up afterwards (GET) to know whether the magazine was made.
`;

export const scaleOptions = () => {
  const parsed = readCommandLine({
    command: 'npm run bench:scale',
    usage,
    options: {
      size: { type: 'string', default: '100000' },
      writers: { type: 'string', default: '24,64' },
      topics: { type: 'string', default: '50' },
      tags: { type: 'string', default: '2' },
      articles: { type: 'string', default: '5000' },
      'article-writers': { type: 'string', default: '4' },
      'distinct-tags': { type: 'string', default: '10000' },
      'new-tags': { type: 'string', default: '4' },
      'scattered-tags': { type: 'boolean', default: false },
      'uuid-ids': { type: 'boolean', default: false },
      quiet: { type: 'string', default: '0,5,15' },
      repeats: { type: 'string', default: '3' },
      'sample-pause-ms': { type: 'string', default: '250' },
      'conflict-rounds': { type: 'string', default: '3' },
      direct: { type: 'string', default: '0' },
      tree: { type: 'string' },
      name: { type: 'string', default: 'scale' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  }).values;

  const settings = {
    size: whole('size', parsed.size, 1),
    writers: wholes('writers', parsed.writers, 1),
    topics: whole('topics', parsed.topics, 1),
    tags: whole('tags', parsed.tags),
    articles: whole('articles', parsed.articles),
    articleWriters: whole('article-writers', parsed['article-writers'], 1),
    distinctTags: wholes('distinct-tags', parsed['distinct-tags']).filter((n) => n > 0),
    newTags: whole('new-tags', parsed['new-tags'], 1),
    scatteredTags: parsed['scattered-tags'],
    uuidIds: parsed['uuid-ids'],
    quiet: wholes('quiet', parsed.quiet),
    repeats: whole('repeats', parsed.repeats, 1),
    samplePauseMs: whole('sample-pause-ms', parsed['sample-pause-ms']),
    conflictRounds: whole('conflict-rounds', parsed['conflict-rounds']),
    direct: whole('direct', parsed.direct),
    name: parsed.name,
  };
  if (!/^[\w.-]+$/.test(settings.name)) {
    process.stderr.write(`--name: ${settings.name} is not a file name\n`);
    process.exit(2);
  }
  return { settings, tree: parsed.tree };
};

export type ScaleSettings = ReturnType<typeof scaleOptions>['settings'];
