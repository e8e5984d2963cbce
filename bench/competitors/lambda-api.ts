import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import createAPI, { type Request, type Response } from 'lambda-api';
import { BadInput, createMagazine, getMagazine, limitOf, listMagazines, toXml, wantsXml } from './shape';

/** lambda-api: its own router, request and response objects. */
const api = createAPI();

api.get('/magazines/:id', async (req: Request, res: Response) => {
  const magazine = await getMagazine(req.params.id ?? '');
  return magazine ? res.status(200).json(magazine) : res.status(404).json({ message: 'Not found' });
});

api.get('/magazines', async (req: Request, res: Response) => {
  const page = await listMagazines(limitOf(req.query.limit));
  if (wantsXml(req.headers.accept)) return res.status(200).type('application/xml').send(toXml('response', page));
  return res.status(200).json(page);
});

api.post('/magazines', async (req: Request, res: Response) => {
  const created = await createMagazine(req.body);
  return res.status(201).header('Location', created.location).json({ id: created.id });
});

api.use((error: Error, _req: Request, res: Response, next: () => void) => {
  if (error instanceof BadInput) return res.status(400).json({ message: error.message });
  next();
});

export const handler = (event: APIGatewayProxyEvent, context: Context) => api.run(event, context);
