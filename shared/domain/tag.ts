export interface TagRef {
  readonly id: string;
  readonly name: string;
}

/** A tag as a resource of its own: its name and how many magazines carry it. */
export interface TagSummary extends TagRef {
  readonly magazineCount: number;
  /** Unix seconds; an upper bound of the tag's last change. */
  readonly lastModified?: number;
  /** The version of the tag's list it was read at: its `ETag`. */
  readonly revision?: string;
}

/**
 * A tag id from its name: accents removed, lower case, runs of anything but `a-z0-9` turned into
 * one `-`, no `-` at either end. Empty when nothing is left.
 */
export const tagIdFromName = (name: string): string =>
  name
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 64)
    .replace(/-+$/, '');
