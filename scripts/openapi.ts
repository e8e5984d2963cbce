import { writeFileSync } from 'node:fs';
import { openApiJson } from '../shared/openapi/document';

/** `npm run openapi`: writes the OpenAPI document, exactly as `GET /openapi.json` serves it, to openapi.json at the repository root. */
const target = new URL('../openapi.json', import.meta.url);
writeFileSync(target, openApiJson());
process.stdout.write(`Wrote ${target.pathname}\n`);
