/** The change events' names and source: all the contract and the docs need, without the mapping's imports. */
export const EVENT_SOURCE = 'magazine-api';

export const changeEventNames = [
  'MagazineCreated',
  'MagazineReplaced',
  'MagazineDeleted',
  'ArticleAdded',
  'CollectionReplaced',
  'CollectionDeleted',
] as const;
export type ChangeEventName = (typeof changeEventNames)[number];
