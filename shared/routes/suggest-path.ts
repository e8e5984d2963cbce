import { versionPrefixOf } from '../operation/paths';
import { operations } from './table';

const distance = (a: string, b: string): number => {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = row[j]!;
      row[j] = Math.min(above + 1, row[j - 1]! + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1));
      diagonal = above;
    }
  }
  return row[b.length]!;
};

const isNear = (sent: string, literal: string) =>
  sent.toLowerCase() === literal || distance(sent.toLowerCase(), literal) <= 2;

/** Whether `requestPath` (any version prefix) is the path of an operation, parameters filled in. */
export const isOperationPath = (requestPath: string): boolean => {
  const sent = requestPath.slice(versionPrefixOf(requestPath).length).replace(/\/+$/, '').split('/').slice(1);
  return operations.some(({ path }) => {
    const template = path.split('/').slice(1);
    return (
      template.length === sent.length && template.every((segment, i) => segment.startsWith('{') || segment === sent[i])
    );
  });
};

/** A near miss such as `/magazine` or `/magazines/1/article`: the path that was probably meant. */
export const suggestPath = (requestPath: string): string | undefined => {
  const prefix = versionPrefixOf(requestPath);
  const sent = requestPath.slice(prefix.length).replace(/\/+$/, '').split('/').slice(1);
  for (const { path } of operations) {
    const template = path.split('/').slice(1);
    if (template.length !== sent.length) continue;
    const fitted = template.map((segment, i) => {
      const given = sent[i] ?? '';
      if (segment.startsWith('{')) return given;
      const bare = given.replace(/\.[A-Za-z0-9]+$/, '');
      return isNear(bare, segment) ? segment : undefined;
    });
    if (fitted.every((segment) => segment !== undefined)) return `${prefix}/${fitted.join('/')}`;
  }
  return undefined;
};
