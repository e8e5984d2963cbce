import serverlessExpress from '@codegenie/serverless-express';
import express, { type NextFunction, type Request, type Response } from 'express';
import { BadInput, createMagazine, getMagazine, limitOf, listMagazines, toXml, wantsXml } from './shape';

/** An Express "lambdalith" behind @codegenie/serverless-express: one app, every route. */
const app = express();
app.use(express.json());

app.get('/magazines/:id', async (req: Request<{ id: string }>, res: Response) => {
  const magazine = await getMagazine(req.params.id);
  if (magazine) res.status(200).json(magazine);
  else res.status(404).json({ message: 'Not found' });
});

app.get('/magazines', async (req: Request, res: Response) => {
  const page = await listMagazines(limitOf(typeof req.query.limit === 'string' ? req.query.limit : undefined));
  if (wantsXml(req.get('accept'))) res.status(200).type('application/xml').send(toXml('response', page));
  else res.status(200).json(page);
});

app.post('/magazines', async (req: Request, res: Response) => {
  const created = await createMagazine(req.body);
  res.status(201).location(created.location).json({ id: created.id });
});

app.use((error: unknown, _req: Request, res: Response, next: NextFunction) => {
  if (error instanceof BadInput) res.status(400).json({ message: error.message });
  else next(error);
});

export const handler = serverlessExpress({ app });
