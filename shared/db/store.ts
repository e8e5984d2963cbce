import { storeConfig } from '../config';
import { createDocumentClient } from './client';
import { createRepository, type Repository } from './repository';

/**
 * The repository every function uses, on the client made once when the function starts (its
 * init phase). Loading this module reads the store settings: see shared/config.ts.
 */
export const repository: Repository = createRepository(createDocumentClient(), storeConfig().tableName);
