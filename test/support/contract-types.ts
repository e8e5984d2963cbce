/** What the contract checker (contract.ts) takes and gives. */

export interface ContractResponse {
  readonly method: string;
  /** The request path (a full URL or a path, with or without query string). */
  readonly path: string;
  readonly status: number;
  /** Response headers; names in any case. */
  readonly headers: Readonly<Record<string, string | undefined>>;
  readonly body: string;
}

export interface ContractRequest {
  readonly method: string;
  /** The request path with its query string (or a full URL). */
  readonly path: string;
  /** A JSON body, as text. */
  readonly body?: string;
}

export interface ContractMatch {
  /** The operationId, or `unrouted` for the documented 404/405 of unknown paths and methods. */
  readonly operationId: string;
  /** The documented path that matched, such as `/magazines/{id}` (the request's version prefix is a server). */
  readonly template: string | undefined;
  /** The body as JSON (XML converted by its schema); undefined when there is none. */
  readonly value: unknown;
}

export interface Template {
  readonly path: string;
  readonly pattern: RegExp;
  /** Its parameters' names, in the order the pattern captures them. */
  readonly names: readonly string[];
  /** Parameters that share their segment with more (`{format}` in `/magazines.{format}`): they split it only where they fit. */
  readonly partial: ReadonlySet<string>;
  readonly schemas: Record<string, unknown>;
  readonly literals: number;
}
