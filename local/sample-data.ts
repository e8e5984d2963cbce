/**
 * A small, realistic data set for everyday development, loaded through the API as a client would
 * (so the counts, tags and lists are made by the real handlers): 36 magazines from 2018 to 2025
 * across eight tags, and two to four articles on every third one. Magazines are PUT by id and
 * articles POSTed with an `Idempotency-Key`, so loading it again changes nothing.
 */

const titles = [
  'Modern Astronomy',
  'Northern Gardens',
  'Coastal Kitchens',
  'The Quiet Engineer',
  'Alpine Journal',
  'Harbour Lights',
  'Field Notes',
  'Urban Sketches',
  'Deep Water',
] as const;

const tagNames = ['Science', 'Travel', 'Food', 'Technology', 'Nature', 'Design', 'Politique & Économie', 'History'];

const firstNames = ['Ada', 'Grace', 'Alan', 'Mary', 'Niels', 'Rosalind', 'Ibn', 'Hedy'];
const lastNames = ['Lovelace', 'Hopper', 'Turing', 'Somerville', 'Bohr', 'Franklin', 'Battuta', 'Lamarr'];

export interface SampleMagazine {
  readonly id: string;
  readonly title: string;
  readonly tags: readonly { readonly name: string }[];
  readonly created: string;
}

export interface SampleArticle {
  readonly title: string;
  readonly author_first_name: string;
  readonly author_last_name: string;
  readonly author_email: string;
  readonly date: string;
  readonly text: string;
}

// Past years only: `created` may not be ahead of now.
const YEARS = [2018, 2019, 2020, 2021, 2022, 2023, 2024, 2025];

export const sampleMagazines: readonly SampleMagazine[] = Array.from({ length: 36 }, (_, i) => {
  const year = YEARS[i % YEARS.length]!;
  // Nine titles and eight years: no title falls on the same year twice in 36.
  const title = `${titles[i % titles.length]!} ${year}`;
  const month = (i * 5) % 12;
  return {
    id: title.toLowerCase().replace(/[^a-z0-9]+/g, '-'),
    title,
    tags: [tagNames[i % tagNames.length]!, tagNames[(i * 3 + 1) % tagNames.length]!]
      .filter((name, at, all) => all.indexOf(name) === at)
      .map((name) => ({ name })),
    created: String(Date.UTC(year, month, 1 + (i % 27), 9) / 1000),
  };
});

export const sampleArticles = (magazine: SampleMagazine, index: number): SampleArticle[] =>
  index % 3 !== 0
    ? []
    : Array.from({ length: 2 + ((index / 3) % 3) }, (_, n) => {
        const who = (index + n) % firstNames.length;
        const year = new Date(Number(magazine.created) * 1000).getUTCFullYear();
        return {
          title: `${magazine.title}: part ${n + 1}`,
          author_first_name: firstNames[who]!,
          author_last_name: lastNames[who]!,
          author_email: `${firstNames[who]!.toLowerCase()}.${lastNames[who]!.toLowerCase()}@example.org`,
          date: `${year}-${String((n % 12) + 1).padStart(2, '0')}-15`,
          text: `Notes for part ${n + 1} of ${magazine.title}, written for the sample data of the Magazine API.`,
        };
      });

/** Loads the sample data through the API at `baseUrl`; says what it made. */
export const loadSampleData = async (baseUrl: string): Promise<{ magazines: number; articles: number }> => {
  const send = async (method: string, path: string, body: unknown, headers: Record<string, string> = {}) => {
    const response = await fetch(`${baseUrl}${path}`, {
      method,
      headers: { 'Content-Type': 'application/json', Accept: 'application/json', ...headers },
      body: JSON.stringify(body),
    });
    if (response.status >= 300)
      throw new Error(`${method} ${path} answered ${response.status}: ${(await response.text()).slice(0, 300)}`);
  };
  let articles = 0;
  for (const [index, magazine] of sampleMagazines.entries()) {
    await send('PUT', `/v1/magazines/${magazine.id}`, magazine);
    for (const [n, article] of sampleArticles(magazine, index).entries()) {
      await send('POST', `/v1/magazines/${magazine.id}/articles`, article, {
        'Idempotency-Key': `sample-${magazine.id}-${n}`,
      });
      articles++;
    }
  }
  return { magazines: sampleMagazines.length, articles };
};
