import { afterEach, describe, expect, it, vi } from 'vitest';
import { enterLogContext, type LogContext } from '../../shared/logger';
import { emfEntry, emfJson, publishMetrics, type RequestOutcome, type StageMetric } from '../../shared/metrics';

/**
 * The metrics line is written from text made once for the common case (a request that counted
 * nothing but itself): byte for byte what serialising its EMF object gives, in every case.
 */
const outcome = (over: Partial<RequestOutcome>): RequestOutcome => ({
  stage: 'prod',
  operation: 'listMagazines',
  status: 200,
  latencyMs: 1.26,
  counts: new Map(),
  ...over,
});

const outcomes: RequestOutcome[] = [
  outcome({}),
  outcome({ status: 304, latencyMs: 0 }),
  outcome({ status: 404, errorCode: '40401', latencyMs: 12345.678 }),
  outcome({ status: 503, errorCode: '50301', storeReason: 'timeout' }),
  outcome({ status: 500, errorCode: '50001' }),
  outcome({ status: 201, counts: new Map<StageMetric, number>([['MagazinesCreated', 1]]) }),
  outcome({ counts: new Map<StageMetric, number>([['StoreThrottled', 0]]) }),
  outcome({ stage: 'a "quoted" \\ stage', operation: 'x\u2028y' }),
];

/** The lines `publishMetrics` writes for `outcomes`, under the log context `context`. */
const linesWritten = (context: LogContext, written: readonly RequestOutcome[]): string[] => {
  process.env.METRICS = 'true';
  const lines: string[] = [];
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => lines.push(String(chunk)) > 0);
  enterLogContext(context);
  for (const o of written) publishMetrics(o);
  return lines;
};

/** What every line starts with, before the request's context. */
const HEAD = ['level', 'message', 'timestamp', 'service'];

afterEach(() => {
  vi.restoreAllMocks();
  delete process.env.METRICS;
});

describe('the metrics line', () => {
  it('is the EMF object serialised, whatever the outcome', () => {
    for (const o of outcomes)
      expect(emfJson(o, 1_795_465_421_890)).toBe(JSON.stringify(emfEntry(o, 1_795_465_421_890)));
  });

  it('is one JSON line: the head of every line, then the EMF fields', () => {
    const lines = linesWritten(
      { requestId: 'r1', awsRequestId: 'a1', traceId: 't1', operation: 'listMagazines' },
      outcomes,
    );
    expect(lines).toHaveLength(outcomes.length);
    for (const [i, line] of lines.entries()) {
      expect(line.endsWith('}\n')).toBe(true);
      const parsed = JSON.parse(line) as Record<string, unknown>;
      const { _aws, ...fields } = emfEntry(outcomes[i]!, (parsed._aws as { Timestamp: number }).Timestamp);
      expect(Object.keys(parsed)).toEqual([
        ...HEAD,
        'requestId',
        'awsRequestId',
        'traceId',
        'operation',
        '_aws',
        ...Object.keys(fields),
      ]);
      expect(parsed).toEqual({
        level: 'METRICS',
        message: 'metrics',
        timestamp: expect.any(String),
        service: 'magazine-api',
        requestId: 'r1',
        awsRequestId: 'a1',
        traceId: 't1',
        operation: 'listMagazines',
        _aws,
        ...fields,
      });
    }
  });

  it('carries the request context as sent, quotes and line breaks escaped, absent ids left out', () => {
    const lines = linesWritten(
      { requestId: 'r"1\n\u2028', awsRequestId: 'a\\1', traceId: undefined, operation: 'getMagazine' },
      [outcome({ operation: 'getMagazine' })],
    );
    expect(lines).toHaveLength(1);
    expect(lines[0]!.indexOf('\n')).toBe(lines[0]!.length - 1);
    const parsed = JSON.parse(lines[0]!) as Record<string, unknown>;
    expect(Object.keys(parsed).slice(0, 7)).toEqual([...HEAD, 'requestId', 'awsRequestId', 'operation']);
    expect(parsed).toMatchObject({
      requestId: 'r"1\n\u2028',
      awsRequestId: 'a\\1',
      operation: 'getMagazine',
      Operation: 'getMagazine',
    });
    expect(new Date(parsed.timestamp as string).toISOString()).toBe(parsed.timestamp);
  });

  it.each([
    ['latency NaN', { latencyMs: Number.NaN }],
    ['latency Infinity', { latencyMs: Number.POSITIVE_INFINITY }],
    ['latency 1e308 (×10 overflows)', { latencyMs: 1e308 }],
    ['status NaN', { status: Number.NaN }],
  ] as const)('is still the EMF object serialised for a number JSON writes as null: %s', (_, over) => {
    const o = outcome(over);
    const text = emfJson(o, 1_795_465_421_890);
    expect(text).toBe(JSON.stringify(emfEntry(o, 1_795_465_421_890)));
  });

  it('is still the EMF object serialised for a timestamp JSON writes as null', () => {
    expect(emfJson(outcome({}), Number.NaN)).toBe(JSON.stringify(emfEntry(outcome({}), Number.NaN)));
  });

  it("carries only the context's own string ids: nothing inherited, nothing unserialisable", () => {
    const context = Object.assign(Object.create({ inherited: 'x' }) as object, {
      requestId: 'r1',
      traceId: Symbol('t') as unknown as string,
      awsRequestId: (() => 'a') as unknown as string,
    });
    const lines = linesWritten(context, [outcome({})]);
    const parsed = JSON.parse(lines[0]!) as Record<string, unknown>;
    expect(parsed.requestId).toBe('r1');
    expect(Object.keys(parsed)).not.toContain('inherited');
    expect(Object.keys(parsed)).not.toContain('traceId');
    expect(Object.keys(parsed)).not.toContain('awsRequestId');
  });
});
