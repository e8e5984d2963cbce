import { Router } from '@aws-lambda-powertools/event-handler/http';
import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import { BadInput, createMagazine, getMagazine, limitOf, listMagazines, toXml, wantsXml } from './shape';

/** Powertools' event handler: its REST router (API Gateway REST, payload 1.0), Web Request and Response. */
const app = new Router();

app.get('/magazines/:id', async ({ params }) => {
  const magazine = await getMagazine(params.id ?? '');
  return magazine
    ? Response.json(magazine)
    : new Response(JSON.stringify({ message: 'Not found' }), {
        status: 404,
        headers: { 'Content-Type': 'application/json' },
      });
});

app.get('/magazines', async ({ req }) => {
  const page = await listMagazines(limitOf(new URL(req.url).searchParams.get('limit') ?? undefined));
  if (wantsXml(req.headers.get('accept') ?? undefined))
    return new Response(toXml('response', page), { status: 200, headers: { 'Content-Type': 'application/xml' } });
  return Response.json(page);
});

app.post('/magazines', async ({ req }) => {
  const created = await createMagazine(await req.json());
  return new Response(JSON.stringify({ id: created.id }), {
    status: 201,
    headers: { 'Content-Type': 'application/json', Location: created.location },
  });
});

app.errorHandler(BadInput, async (error) => ({ statusCode: 400, message: error.message }));

export const handler = (event: APIGatewayProxyEvent, context: Context) => app.resolve(event, context);
