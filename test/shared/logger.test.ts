import { afterEach, describe, expect, it, vi } from 'vitest';
import { logger } from '../../shared/logger';

describe('the structured logger', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('writes one JSON line with the error spelled out', () => {
    const lines: string[] = [];
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => lines.push(String(chunk)) > 0);
    logger.error('Unhandled error', { requestId: 'r1', error: new Error('boom', { cause: new Error('root') }) });
    expect(lines).toHaveLength(1);
    const entry = JSON.parse(lines[0] ?? '') as Record<string, unknown>;
    expect(entry).toMatchObject({
      level: 'ERROR',
      message: 'Unhandled error',
      service: 'magazine-api',
      requestId: 'r1',
      error: { name: 'Error', message: 'boom', cause: { message: 'root' } },
    });
    expect(lines[0]?.endsWith('\n')).toBe(true);
  });

  it('leaves out messages below the level', () => {
    const write = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    logger.debug('noise');
    expect(write).not.toHaveBeenCalled();
  });
});
