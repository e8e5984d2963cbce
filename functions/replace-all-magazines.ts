import { repository } from '../shared/db/store';
import { newId } from '../shared/domain/fields';
import { magazineListInput, toDraft } from '../shared/domain/magazine';
import { api } from '../shared/http/api';
import { ApiError } from '../shared/http/errors';
import { done } from '../shared/http/replies';

/** Every element is checked before anything is written; ids left out are made by the server. */
const draftsOf = (body: Parameters<typeof toDraft>[0][]) => {
  const seen = new Map<string, number>();
  return body.map((input, index) => {
    const draft = toDraft(input, `[${index}].`);
    const id = draft.id ?? newId();
    const first = seen.get(id);
    if (first !== undefined)
      throw new ApiError(
        '40008',
        `Elements [${first}] and [${index}] of the body have the same \`id\` (\`${id}\`); each magazine must have its own id.`,
      );
    seen.set(id, index);
    return { ...draft, id };
  });
};

export const handler = api({
  body: magazineListInput,
  run: async ({ body, ifMatch }) => {
    await repository.replaceAllMagazines(draftsOf(body), ifMatch);
    return done('magazines');
  },
  mock: ({ body }) => {
    draftsOf(body);
    return done('magazines');
  },
});
