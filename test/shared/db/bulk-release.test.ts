import { describe, expect, it } from 'vitest';
import { awaitHolder, release } from '../../../shared/db/bulk-claim';
import type { TableAccess } from '../../../shared/db/table-access';

/**
 * A bulk write refused with 412 lets the collection go: it unseals the guards while its claim
 * still holds, then ends the claim. The other way round, a bulk write that claimed in between had
 * its seal undone by this one's late unseal (an unconditional batch), and a write that read the
 * head before its switch could then commit into the generation it replaced.
 */
describe('release of a refused bulk write', () => {
  it('unseals every guard before it ends its claim', async () => {
    const sent: { readonly command: string; readonly at: number }[] = [];
    let clock = 0;
    const client = {
      send: async (command: object) => {
        // Every call takes a moment, so that calls sent at once are told apart from calls sent after.
        const at = clock++;
        await new Promise((tick) => setTimeout(tick, 1));
        sent.push({ command: command.constructor.name, at });
        return { UnprocessedItems: {}, Attributes: {} };
      },
    };
    const access = {
      tableName: 't',
      remaining: () => 10_000,
      send: (call: (c: typeof client, options: object) => Promise<unknown>) => call(client, {}),
    } as unknown as TableAccess;
    await release(access, { generation: 'g1', owner: 'owner-1', target: 'g2' });
    const claimEnded = sent.find(({ command }) => command === 'UpdateCommand')!;
    const unseals = sent.filter(({ command }) => command === 'BatchWriteCommand');
    expect(unseals.length).toBeGreaterThan(0);
    expect(unseals.every(({ at }) => at < claimEnded.at)).toBe(true);
  });
});

/**
 * The same bulk write sent again while the first copy ran waits for that copy's switch. A switch
 * that a later bulk write has since moved on from is still that switch: the copy answers at once,
 * rather than wait out its deadline for heads that will never name its generation, then 503.
 */
describe('a copy waiting for the holder of its claim', () => {
  it('is done once the claim is switched, whatever the heads name by now', async () => {
    let reads = 0;
    const access = {
      remaining: () => 10_000,
      get: async (key: { PK: string }) => {
        reads++;
        return key.PK.startsWith('BULK#')
          ? { stage: 'switched', target: 'g2', leaseUntil: Date.now() + 30_000 }
          : { generation: 'g3' };
      },
    } as unknown as TableAccess;
    await expect(awaitHolder(access, 'g1', 'g2')).resolves.toBe(true);
    expect(reads).toBeLessThanOrEqual(2);
  });
});
