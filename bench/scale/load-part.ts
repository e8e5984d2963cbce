import {
  type ApiClient,
  type CallLedger,
  type Census,
  type ListQuery,
  loadMagazines,
  lookUpFailed,
  type MagazineDraft,
  measurePages,
} from '../../test/support/api-load';
import type { ApiServer } from '../support/api-server';
import type { ScaleSettings } from './options';
import { kb, n } from './report';
import type { LoadPart, PointPage, QuietPoint, Sample } from './results';

/** What the parts of a scale run share: the server, its client and ledger, and how pages are measured. */
export interface ScaleRun {
  readonly settings: ScaleSettings;
  readonly client: ApiClient;
  readonly census: Census;
  readonly ledger: CallLedger;
  readonly server: ApiServer;
  /** Milliseconds since the run started. */
  since(): number;
  /** Pending count items, read behind the API's back. */
  pendingNow(): Promise<number>;
  /** Every page of `list`, `repeats` times: per page the most calls and bytes, the median latency. */
  measureRepeated(client: ApiClient, list: readonly ListQuery[]): Promise<PointPage[]>;
}

export const say = (line: string) => process.stderr.write(`${line}\n`);
export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const measurePoint = async (run: ScaleRun, quietSeconds: number, list: readonly ListQuery[]): Promise<QuietPoint> => ({
  quietSeconds,
  pages: await run.measureRepeated(run.client, list),
  pending: await run.pendingNow().catch(() => undefined),
});

/** `count` POSTs by `writers`, sampled meanwhile, then measured after each quiet point. */
export const loadPart = async (
  run: ScaleRun,
  options: {
    readonly name: string;
    readonly writers: number;
    readonly count: number;
    readonly draft: (i: number) => MagazineDraft;
    readonly list: () => ListQuery[];
  },
): Promise<LoadPart> => {
  const { name, writers, count, draft, list } = options;
  const { settings, client, census, ledger, server } = run;
  const samples: Sample[] = [];
  let lastSay = 0;
  const { outcome, failed } = await loadMagazines({
    client,
    count,
    concurrency: writers,
    draft,
    census,
    pauseMs: settings.samplePauseMs,
    during: async () => {
      const pages = await measurePages(client, ledger, list());
      const pending = await run.pendingNow().catch(() => undefined);
      samples.push({ ms: run.since(), magazines: census.total, pending, pages });
    },
    onAnswer: ({ answered, elapsedMs }) => {
      if (elapsedMs - lastSay < 30_000 && answered < count) return;
      lastSay = elapsedMs;
      const left = ((count - answered) * elapsedMs) / answered / 60_000;
      say(
        `  ${n(answered)} of ${n(count)} in ${(elapsedMs / 1000).toFixed(0)} s (${((answered * 1000) / elapsedMs).toFixed(0)} a second, ${left.toFixed(0)} min left at that rate), ${n(census.total)} magazines, pending ${samples.at(-1)?.pending ?? '?'}, first page ${samples.at(-1)?.pages[0] ? `${samples.at(-1)!.pages[0]!.calls} calls, ${kb(samples.at(-1)!.pages[0]!.bytes)} KB` : '?'}`,
      );
    },
  });
  const stopped = performance.now();
  const after: QuietPoint[] = [];
  for (const quiet of settings.quiet) {
    await sleep(Math.max(0, stopped + quiet * 1000 - performance.now()));
    after.push(await measurePoint(run, quiet, list()));
  }
  const serverErrors = server.takeServerErrors();
  // Last, so that the quiet points are quiet: a client that got no 201 looks whether it was made.
  const madeDespiteFailure = (await lookUpFailed(client, census, failed)).length;
  return {
    name,
    writers,
    posts: count,
    magazines: census.total,
    outcome,
    madeDespiteFailure,
    serverErrors,
    samples,
    after,
  };
};
