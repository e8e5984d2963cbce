import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import type { LocalEnvironment } from './environment';

export type LambdaHandler = (event: APIGatewayProxyEvent, context: Context) => Promise<unknown>;

/** Resolves a route's `handler` name to its function. */
export interface HandlerLoader {
  (name: string): Promise<LambdaHandler>;
  /** Releases what loading took (the bundled functions' workers). */
  close?(): Promise<void>;
}

const functionsDirectory = new URL('../functions/', import.meta.url);

/** Imports `functions/<name>.ts` and returns its `handler`. */
const importHandler = async (name: string): Promise<LambdaHandler> => {
  const module: unknown = await import(new URL(`${name}.ts`, functionsDirectory).href);
  const handler = typeof module === 'object' && module !== null && 'handler' in module ? module.handler : undefined;
  if (typeof handler !== 'function') throw new Error(`functions/${name}.ts does not export a \`handler\` function.`);
  return handler as LambdaHandler;
};

/**
 * The handlers from their TypeScript sources, in this process. It takes the prepared environment
 * because a handler module reads its settings when it loads: there is no loading before it.
 */
export const sourceHandlers = (_environment: LocalEnvironment): HandlerLoader => importHandler;
