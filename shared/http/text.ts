import { ApiError } from './errors';

/**
 * Text the API takes must be Unicode that UTF-8 can carry. A JavaScript string can hold what no
 * UTF-8 can: an unpaired UTF-16 surrogate, which a JSON escape such as `"\udfff"` decodes to.
 * DynamoDB stores strings as UTF-8 and cannot take one, and XML cannot carry one either; so such
 * text is refused where it comes in, before anything reads it, with the place it was found.
 */

/** The place of the first text that is not Unicode in a decoded JSON value: a string, or the name of a field. */
interface IllFormedText {
  /** Field names and array indices from the root to the string, or to the object holding the name. */
  readonly path: readonly (string | number)[];
  /** Whether the name of a field of the object at `path` is at fault, rather than the string at `path`. */
  readonly inName: boolean;
}

interface Visit {
  readonly value: unknown;
  readonly key: string | number | undefined;
  readonly parent: Visit | undefined;
}

const pathOf = (visit: Visit): (string | number)[] => {
  const path: (string | number)[] = [];
  for (let at: Visit | undefined = visit; at?.key !== undefined; at = at.parent) path.push(at.key);
  return path.reverse();
};

/**
 * The first text in `value`, in document order, that is not well-formed Unicode. Walked with a
 * stack of its own, not by recursion: a 1 MiB body can nest half a million arrays, which JSON.parse
 * takes and a recursive walk would not.
 */
export const findIllFormedText = (value: unknown): IllFormedText | undefined => {
  const stack: Visit[] = [{ value, key: undefined, parent: undefined }];
  for (let visit = stack.pop(); visit; visit = stack.pop()) {
    const current = visit.value;
    if (typeof current === 'string') {
      if (!current.isWellFormed()) return { path: pathOf(visit), inName: false };
    } else if (Array.isArray(current)) {
      for (let index = current.length - 1; index >= 0; index--)
        stack.push({ value: current[index], key: index, parent: visit });
    } else if (typeof current === 'object' && current !== null) {
      const entries = Object.entries(current);
      if (entries.some(([name]) => !name.isWellFormed())) return { path: pathOf(visit), inName: true };
      for (let index = entries.length - 1; index >= 0; index--) {
        const [name, child] = entries[index] ?? [];
        if (name !== undefined) stack.push({ value: child, key: name, parent: visit });
      }
    }
  }
  return undefined;
};

/** `value` if it is well-formed Unicode; a reader that must not act on anything else takes it as absent. */
export const wellFormedOrAbsent = (value: string | null | undefined): string | undefined =>
  value?.isWellFormed() ? value : undefined;

/** `subject` names the place: ``Body field `tags[0].name` ``, ``Query parameter `tag` ``, ``Header `If-Match` ``. */
export const notUnicode = (subject: string) =>
  new ApiError(
    '40015',
    `${subject} holds an unpaired UTF-16 surrogate (a code unit from U+D800 to U+DFFF without its partner, such as the JSON escape \`\\udfff\` alone); it must be valid Unicode text.`,
  );
