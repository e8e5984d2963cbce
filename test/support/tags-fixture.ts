import { replaceAllMagazines } from '../../shared/db/bulk';
import { deleteMagazine } from '../../shared/db/magazines';
import type { TableAccess } from '../../shared/db/table-access';
import type { TagRef } from '../../shared/domain/tag';

/**
 * 25 magazines of 32 tags each made by a bulk write, 800 tags in three blocks of `TAGS` (200, 200
 * and 400 tags); then magazines 6 to 12 deleted, so that tags 192–415 (the whole middle block, and
 * more) go out of use.
 */
export const threeBlocksOfTags = async (writes: () => TableAccess, tag: (i: number) => TagRef) => {
  await replaceAllMagazines(
    writes(),
    Array.from({ length: 25 }, (_, m) => ({
      id: `m${String(m).padStart(2, '0')}`,
      title: `M ${m}`,
      tags: Array.from({ length: 32 }, (_, k) => tag(m * 32 + k)),
      created: 1_600_000_000 + m,
    })),
    undefined,
  );
  for (let m = 6; m <= 12; m++) await deleteMagazine(writes(), `m${String(m).padStart(2, '0')}`, undefined);
};
