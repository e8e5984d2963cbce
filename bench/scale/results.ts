import type { LoadOutcome, PageFigures } from '../../test/support/api-load';
import type { WriteCost } from '../support/write-cost';
import type { ScaleSettings } from './options';

/** What `npm run bench:scale` keeps of a run. */

export interface Sample {
  /** Since the run started. */
  readonly ms: number;
  readonly magazines: number;
  readonly pending: number | undefined;
  readonly pages: PageFigures[];
}

/** A page measured `repeats` times at one point: the most calls and bytes seen, the median latency. */
export type PointPage = Omit<PageFigures, 'ms' | 'count'> & { readonly medianMs: number };

export interface QuietPoint {
  readonly quietSeconds: number;
  readonly pending: number | undefined;
  readonly pages: PointPage[];
}

export interface LoadPart {
  readonly name: string;
  readonly writers: number;
  readonly posts: number;
  /** Magazines in the collection after it. */
  readonly magazines: number;
  readonly outcome: Omit<LoadOutcome, 'failures'> & { readonly failures: LoadOutcome['failures'] };
  /** Answers other than 201 whose magazine exists all the same (GET afterwards). */
  readonly madeDespiteFailure: number;
  /** The server's answers of 500 and more meanwhile, by operation, status and reason (its metrics lines). */
  readonly serverErrors: Record<string, number>;
  readonly samples: Sample[];
  readonly after: QuietPoint[];
}

export interface ConflictCase {
  readonly name: string;
  readonly posts: number;
  /** Per round. */
  readonly failures: number[];
  readonly transactionsPerPost: number[];
  readonly cancelledPerPost: number[];
  readonly cancelledBy: Record<string, number>[];
  readonly p50Ms: number[];
  readonly p99Ms: number[];
  readonly statuses: Record<string, number>;
  readonly serverErrors: Record<string, number>;
  /** The first few answers other than 201. */
  readonly failureTexts: string[];
}

/** Everything a run keeps, written to bench/results/<name>.json. */
export const newResults = (settings: ScaleSettings, tree: string) => ({
  generated: '',
  command: `npm run bench:scale${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(' ')}` : ''}`,
  tree,
  node: process.versions.node,
  settings,
  timings: [] as { part: string; seconds: number }[],
  articles: undefined as
    | {
        posts: number;
        created: number;
        seconds: number;
        perSecond: number;
        statuses: Readonly<Record<string, number>>;
        serverErrors: Record<string, number>;
        firstFailure?: string;
      }
    | undefined,
  phases: [] as LoadPart[],
  tags: [] as (LoadPart & { readonly distinctTags: number })[],
  writeCosts: [] as (WriteCost & { readonly when: string; readonly distinctTags: number })[],
  conflicts: [] as ConflictCase[],
  direct: undefined as { size: number; loadSeconds: number; pages: PointPage[] } | undefined,
  /** The server ended by itself: during which part, and what it said. The run stops there. */
  serverStopped: undefined as { part: string; how: string } | undefined,
  pending: [] as { ms: number; pending: number }[],
  marks: [] as { ms: number; label: string }[],
});

export type ScaleResults = ReturnType<typeof newResults>;
