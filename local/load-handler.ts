import type { APIGatewayProxyEvent, Context } from 'aws-lambda';

export type LambdaHandler = (event: APIGatewayProxyEvent, context: Context) => Promise<unknown>;

/** Resolves a route's `handler` name to its function. */
export type HandlerLoader = (name: string) => Promise<LambdaHandler>;

const functionsDirectory = new URL('../functions/', import.meta.url);

/**
 * Imports `functions/<name>.ts` and returns its `handler`. Call it only once the handlers'
 * environment is set: their modules read their settings when they load.
 */
export const importHandler: HandlerLoader = async (name) => {
  const module: unknown = await import(new URL(`${name}.ts`, functionsDirectory).href);
  const handler = typeof module === 'object' && module !== null && 'handler' in module ? module.handler : undefined;
  if (typeof handler !== 'function') throw new Error(`functions/${name}.ts does not export a \`handler\` function.`);
  return handler as LambdaHandler;
};
