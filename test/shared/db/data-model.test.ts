import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { keyTemplates } from '../../../shared/db/keys';

/**
 * docs/data-model.md is the one place the model is explained; its key table must say what the
 * key module does. Each row names its template in keys.ts; the template is called with the row's
 * placeholders (`<G>`, `<list>`…, in the order PK then SK names them) and must give the row's keys.
 */
const note = readFileSync(new URL('../../../docs/data-model.md', import.meta.url), 'utf8');

const rows = note
  .split('\n')
  .filter((line) => /^\| .+ \| `[a-zA-Z]+` \| `[^`]+` \| `[^`]+` \|/.test(line))
  .map((line) => {
    const [, , name = '', pk = '', sk = ''] = line.split('|').map((cell) => cell.trim().replace(/^`|`$/g, ''));
    return { name, pk, sk };
  });

/** Numbers are padded with zeros in keys; a placeholder stands for the whole number. */
const unpadded = (key: string) => key.replace(/0+</g, '<');

describe('docs/data-model.md', () => {
  it('has a row in its key table for every key template of keys.ts, and no other', () => {
    expect(rows.map((row) => row.name).sort()).toEqual(Object.keys(keyTemplates).sort());
  });

  it.each(rows)('says the keys of `$name` as keys.ts makes them: $pk / $sk', ({ name, pk, sk }) => {
    const template = keyTemplates[name as keyof typeof keyTemplates] as (...args: unknown[]) => {
      PK: string;
      SK: string;
    };
    const placeholders = `${pk} ${sk}`.match(/<[a-zA-Z]+>/g) ?? [];
    const key = template(...placeholders);
    expect({ PK: unpadded(key.PK), SK: unpadded(key.SK) }).toEqual({ PK: pk, SK: sk });
  });
});
