import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { apiClient, Census, listQueries, magazineDraft, spreadOverTenYears } from '../../test/support/api-load';
import { type ApiServer, startApiServer } from '../support/api-server';
import type { DirectLoadJob } from '../support/scale-child';
import type { ScaleRun } from './load-part';

/**
 * Comparison only, never the figure: the same magazines written straight into another table by
 * the repository's bulk path (bench/support/scale-child.ts, no API), then their pages measured by
 * a server of their own.
 */
export const runDirect = async (
  run: ScaleRun,
  where: {
    readonly root: string;
    readonly tree: string;
    /** DynamoDB Local's, for the load; the proxy's, for the server. */
    readonly endpoint: string;
    readonly proxyEndpoint: string;
    readonly scratch: string;
    readonly mix: DirectLoadJob['mix'];
    readonly tag: string;
  },
  onServer: (server: ApiServer) => void,
) => {
  const { settings } = run;
  const { root, tree, scratch, mix, tag } = where;
  const directTable = 'scale-direct';
  const job: DirectLoadJob = {
    tree,
    endpoint: where.endpoint,
    table: directTable,
    size: settings.direct,
    prefix: 'm',
    mix,
  };
  const jobFile = path.join(scratch, 'direct.json');
  writeFileSync(jobFile, JSON.stringify(job));
  const loadStarted = performance.now();
  const code = await new Promise<number | null>((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', path.join(root, 'bench', 'support', 'scale-child.ts'), jobFile],
      {
        cwd: root,
        env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' },
        stdio: ['ignore', 2, 2],
      },
    );
    child.once('error', reject);
    child.once('exit', resolve);
  });
  if (code !== 0) throw new Error(`The direct load failed (exit ${code}).`);
  const loadSeconds = (performance.now() - loadStarted) / 1000;
  const directServer = await startApiServer({
    tree,
    endpoint: where.proxyEndpoint,
    tableName: directTable,
    logFile: path.join(scratch, 'direct.log'),
  });
  onServer(directServer);
  const directClient = apiClient(directServer.url);
  const directCensus = new Census();
  const directCreated = spreadOverTenYears(settings.direct);
  for (let i = 0; i < settings.direct; i++) directCensus.add(magazineDraft('m', i, mix, directCreated));
  const list = listQueries(directCensus, { tag, year: directCensus.busiestYear() });
  for (const query of list) await directClient.get(query.path);
  const direct = { size: settings.direct, loadSeconds, pages: await run.measureRepeated(directClient, list) };
  directClient.close();
  return direct;
};
