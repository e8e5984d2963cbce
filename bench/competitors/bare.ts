import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { BadInput, createMagazine, getMagazine, limitOf, listMagazines, toXml, wantsXml } from './shape';

/** The least a handler of the three operations can be: no framework, routed by API Gateway's resource. */
const json = (statusCode: number, body: unknown, headers: Record<string, string> = {}): APIGatewayProxyResult => ({
  statusCode,
  headers: { 'Content-Type': 'application/json', ...headers },
  body: JSON.stringify(body),
});

const accept = (event: APIGatewayProxyEvent) => event.headers.Accept ?? event.headers.accept;

export const handler = async (event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> => {
  try {
    if (event.httpMethod === 'GET' && event.resource === '/magazines/{id}') {
      const magazine = await getMagazine(event.pathParameters?.id ?? '');
      return magazine ? json(200, magazine) : json(404, { message: 'Not found' });
    }
    if (event.httpMethod === 'GET' && event.resource === '/magazines') {
      const page = await listMagazines(limitOf(event.queryStringParameters?.limit));
      return wantsXml(accept(event))
        ? { statusCode: 200, headers: { 'Content-Type': 'application/xml' }, body: toXml('response', page) }
        : json(200, page);
    }
    if (event.httpMethod === 'POST' && event.resource === '/magazines') {
      const created = await createMagazine(JSON.parse(event.body ?? 'null'));
      return json(201, { id: created.id }, { Location: created.location });
    }
    return json(404, { message: 'Not found' });
  } catch (error) {
    if (error instanceof BadInput || error instanceof SyntaxError) return json(400, { message: error.message });
    throw error;
  }
};
