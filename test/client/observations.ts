/** What the typed client saw of each request, for test/client/typed-client.test.ts to check. */
export interface Seen {
  readonly status: number;
  readonly contentType: string | null;
  /** The parsed body of a success (text for XML), or of an error. */
  readonly body: unknown;
}

export type Observations = Readonly<
  Record<
    'created' | 'listed' | 'mocked' | 'xml' | 'article' | 'duplicate' | 'badLimit' | 'misspelt' | 'deleted' | 'gone',
    Seen
  >
>;
