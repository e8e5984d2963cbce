import type * as z from 'zod/mini';
import { type ApiError, invalidField, invalidParameter, unknownField } from './errors';

const formatPath = (path: readonly PropertyKey[]) =>
  path.reduce<string>(
    (text, key) => (typeof key === 'number' ? `${text}[${key}]` : text ? `${text}.${String(key)}` : String(key)),
    '',
  );

const quoteList = (names: readonly string[]) => names.map((n) => `\`${n}\``).join(', ');

/** Turns the first problem zod found into an error naming the exact field and what it accepts. */
const toApiError = (error: z.core.$ZodError, where: 'body' | 'query'): ApiError => {
  const issue = error.issues[0];
  if (!issue)
    return where === 'body'
      ? invalidField('The request body is not valid.')
      : invalidParameter('The query is not valid.');
  const field = formatPath(issue.path);
  if (issue.code === 'unrecognized_keys') {
    const names = issue.keys.map((key) => formatPath([...issue.path, key]));
    return unknownField(
      `The request body has ${names.length > 1 ? 'fields' : 'a field'} this resource does not have: ${quoteList(names)}. Remove ${names.length > 1 ? 'them' : 'it'} or correct the spelling.`,
    );
  }
  if (where === 'query') return invalidParameter(`Query parameter \`${field}\` ${issue.message}.`);
  if (!field) return invalidField(`The request body ${issue.message}.`);
  return invalidField(`Body field \`${field}\` ${issue.message}.`);
};

export const parseWith = <S extends z.ZodMiniType>(schema: S, value: unknown, where: 'body' | 'query'): z.output<S> => {
  const result = schema.safeParse(value);
  if (!result.success) throw toApiError(result.error, where);
  return result.data;
};
