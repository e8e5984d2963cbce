/**
 * The comparison of `npm run bench:scale -- --direct N` (bench/scale.ts), never its figure: N
 * magazines written straight into a table by the data layer's own PUT /magazines path (the
 * repository's `replaceAllMagazines`: BatchWriteItem of repository-shaped items, uncounted), as the
 * benchmark loaded them before it loaded through the API. No write leaves count work behind this
 * way, which is why its pages look cheaper than those users make.
 *
 * `node --import tsx bench/support/scale-child.ts <job.json>`, in a fresh process, since the data
 * layer reads its settings when imported.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { localDynamoDbClient } from '../../local/dynamodb-local';
import { magazineDraft, spreadOverTenYears, type TagMix } from '../../test/support/api-load';

export interface DirectLoadJob {
  readonly tree: string;
  /** DynamoDB Local itself, not the proxy: the load is not what is measured. */
  readonly endpoint: string;
  readonly table: string;
  readonly size: number;
  readonly prefix: string;
  readonly mix: TagMix;
}

const [jobFile] = process.argv.slice(2);
if (!jobFile) throw new Error('Usage: scale-child.ts <job.json>');
const job = JSON.parse(readFileSync(jobFile, 'utf8')) as DirectLoadJob;

const fromTree = async <T>(relative: string): Promise<T> =>
  (await import(pathToFileURL(path.join(job.tree, relative)).href)) as T;

// The store on the table: composed beside the per-operation bindings in this design (bindings.ts, stores.ts
// before it was renamed), in shared/db/repository.ts before that.
const repositoryModule =
  ['shared/bindings.ts', 'shared/stores.ts'].find((file) => existsSync(path.join(job.tree, file))) ??
  'shared/db/repository.ts';

// The tree's own set-up: its settings in the environment and the table made, before any of its data layer is imported.
const { prepareLocalEnvironment } = await fromTree<{
  prepareLocalEnvironment: (options: { endpoint: string; tableName: string }) => Promise<unknown>;
}>('local/environment.ts');
await prepareLocalEnvironment({ endpoint: job.endpoint, tableName: job.table });

const createdOf = spreadOverTenYears(job.size);
const drafts = Array.from({ length: job.size }, (_, i) => magazineDraft(job.prefix, i, job.mix, createdOf));

// Long timeouts and many attempts: a bulk write sends a hundred batches at once, and a loaded
// DynamoDB Local on a shared machine can take longer than the API's own client allows.
const client = DynamoDBDocumentClient.from(localDynamoDbClient(job.endpoint, { timeoutMs: 120_000, maxAttempts: 10 }), {
  marshallOptions: { removeUndefinedValues: true },
});
const repository = await fromTree<{ createRepository: (client: unknown, table: string) => unknown }>(repositoryModule);
type Bulk = { replaceAllMagazines: (drafts: unknown[], precondition: undefined) => Promise<unknown> };
if (existsSync(path.join(job.tree, 'shared', 'db', 'bulk.ts'))) {
  // A repository per request deadline.
  const forDeadline = repository.createRepository(client, job.table) as (deadline: number) => Bulk;
  await forDeadline(Date.now() + 3_600_000).replaceAllMagazines(drafts, undefined);
} else {
  // The design before generations: one repository for all requests.
  await (repository.createRepository(client, job.table) as Bulk).replaceAllMagazines(drafts, undefined);
}
// Handlers' modules may leave timers behind: the load is done.
process.exit(0);
