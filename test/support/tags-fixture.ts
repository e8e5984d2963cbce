import { replaceAllMagazines } from '../../shared/db/bulk';
import { deleteMagazine } from '../../shared/db/magazines';
import type { TableAccess } from '../../shared/db/table-access';
import type { TagRef } from '../../shared/domain/tag';

/**
 * 25 magazines of 32 tags each (`tag(0)` to `tag(799)`), `idOf(0)` to `idOf(24)`, made by a bulk
 * write: 800 tags merged into three blocks of `TAGS` (200, 200 and 400 tags).
 */
export const eightHundredTags = (
  writes: () => TableAccess,
  tag: (i: number) => TagRef,
  idOf: (m: number) => string = (m) => `m${m}`,
) =>
  replaceAllMagazines(
    writes(),
    Array.from({ length: 25 }, (_, m) => ({
      id: idOf(m),
      title: `M ${m}`,
      tags: Array.from({ length: 32 }, (_, k) => tag(m * 32 + k)),
      created: 1_600_000_000 + m,
    })),
    undefined,
  );

/**
 * `eightHundredTags`, then magazines 6 to 12 deleted, so that tags 192–415 (the whole middle
 * block, and more) go out of use.
 */
export const threeBlocksOfTags = async (writes: () => TableAccess, tag: (i: number) => TagRef) => {
  await eightHundredTags(writes, tag, (m) => `m${String(m).padStart(2, '0')}`);
  for (let m = 6; m <= 12; m++) await deleteMagazine(writes(), `m${String(m).padStart(2, '0')}`, undefined);
};
