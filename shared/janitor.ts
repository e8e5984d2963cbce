/**
 * The scheduled tasks' composition (as shared/app.ts is the operations'): the janitor bound to
 * the table. Kept apart from app.ts so that its bundle carries no HTTP stack.
 */
import type { Swept } from './db/cleanup';
import { tableJanitor } from './db/store';

export type { Swept };

/** Clears garbage until `deadline` (Unix ms); the table's client is made once per function instance. */
export const janitor = (): ((deadline: number) => Promise<Swept>) => tableJanitor();
