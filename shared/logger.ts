import { Logger } from '@aws-lambda-powertools/logger';

/** The one structured logger of every function. */
export const logger = new Logger({ serviceName: 'magazine-api' });
