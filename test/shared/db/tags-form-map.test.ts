import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { magazineKey } from '../../../shared/db/keys';
import { createMagazine, getMagazine, replaceMagazine } from '../../../shared/db/magazines';
import { useWireTable } from '../../support/wire-table';

/**
 * As a deployed stage writes until its operator sets `magazineTagsForm=string`: maps of id and
 * name, the only form 1.0.0 reads (docs/operations.md, Safe deploys). The setting is read on the
 * first write, so this file's worker writes maps throughout.
 */
process.env.MAGAZINE_TAGS_FORM = 'map';

const { tableName, direct, reading } = useWireTable('tags-form-map', (writes) =>
  createMagazine(writes(), {
    id: 'm-map',
    title: 'Maps',
    tags: [{ id: 'news', name: 'News today' }],
    created: 1_700_000_000,
  }),
);
const stored = async () =>
  (await direct.send(new GetCommand({ TableName: tableName, Key: magazineKey('0', 'm-map') }))).Item;

describe('a deployment that writes tags as 1.0.0 reads them', () => {
  it('creates and replaces magazines with a map of id and name a tag', async () => {
    expect((await stored())?.tags).toEqual([{ id: 'news', name: 'News today' }]);
    const { error } = await reading((access) =>
      replaceMagazine(
        access,
        { id: 'm-map', title: 'Maps', tags: [{ id: 'art', name: 'Art and craft' }], created: undefined },
        undefined,
      ),
    );
    expect(error).toBeUndefined();
    expect((await stored())?.tags).toEqual([{ id: 'art', name: 'Art and craft' }]);
    const { value } = await reading((access) => getMagazine(access, 'm-map'));
    expect(value?.tags).toEqual([{ id: 'art', name: 'Art and craft' }]);
  });
});
