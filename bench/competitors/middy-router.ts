import middy from '@middy/core';
import httpRouterHandler from '@middy/http-router';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { BadInput, createMagazine, getMagazine, limitOf, listMagazines, toXml, wantsXml } from './shape';

/** middy with @middy/http-router: one middy handler per route behind the router. */
const json = (statusCode: number, body: unknown, headers: Record<string, string> = {}): APIGatewayProxyResult => ({
  statusCode,
  headers: { 'Content-Type': 'application/json', ...headers },
  body: JSON.stringify(body),
});

const badInput = {
  onError: (request: { error?: unknown; response?: unknown }) => {
    if (request.error instanceof BadInput || request.error instanceof SyntaxError)
      request.response = json(400, { message: request.error.message });
  },
};

const getOne = middy<APIGatewayProxyEvent, APIGatewayProxyResult>().handler(async (event) => {
  const magazine = await getMagazine(event.pathParameters?.id ?? '');
  return magazine ? json(200, magazine) : json(404, { message: 'Not found' });
});

const list = middy<APIGatewayProxyEvent, APIGatewayProxyResult>()
  .use(badInput)
  .handler(async (event) => {
    const page = await listMagazines(limitOf(event.queryStringParameters?.limit));
    return wantsXml(event.headers.Accept ?? event.headers.accept)
      ? { statusCode: 200, headers: { 'Content-Type': 'application/xml' }, body: toXml('response', page) }
      : json(200, page);
  });

const create = middy<APIGatewayProxyEvent, APIGatewayProxyResult>()
  .use(badInput)
  .handler(async (event) => {
    const created = await createMagazine(JSON.parse(event.body ?? 'null'));
    return json(201, { id: created.id }, { Location: created.location });
  });

export const handler = middy<APIGatewayProxyEvent, APIGatewayProxyResult>().handler(
  httpRouterHandler<APIGatewayProxyEvent, APIGatewayProxyResult>([
    { method: 'GET', path: '/magazines/{id}', handler: getOne },
    { method: 'GET', path: '/magazines', handler: list },
    { method: 'POST', path: '/magazines', handler: create },
  ]),
);
