import { repository } from '../shared/db/store';
import { isIdentifier } from '../shared/domain/fields';
import { magazineInput, toDraft } from '../shared/domain/magazine';
import { api } from '../shared/http/api';
import { ApiError } from '../shared/http/errors';
import { created, done } from '../shared/http/replies';

const draftFor = (id: string, body: Parameters<typeof toDraft>[0]) => {
  if (!isIdentifier(id))
    throw new ApiError(
      '40013',
      `Path segment \`{id}\` (\`${id}\`) must be 1 to 64 letters, digits, \`_\` or \`-\`, starting with a letter or digit.`,
    );
  if (body.id !== undefined && body.id !== id)
    throw new ApiError(
      '40007',
      `Body field \`id\` (\`${body.id}\`) differs from the path's \`{id}\` (\`${id}\`); leave it out or make them equal.`,
    );
  return { ...toDraft(body), id };
};

export const handler = api({
  body: magazineInput,
  run: async ({ params, body, links, ifMatch }) => {
    const draft = draftFor(params.id, body);
    const outcome = await repository.putMagazine(draft, ifMatch);
    return outcome === 'created' ? created(draft.id, links.to(`/magazines/${draft.id}`)) : done(draft.id);
  },
  mock: ({ params, body }) => done(draftFor(params.id, body).id),
});
