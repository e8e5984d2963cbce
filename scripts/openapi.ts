import { writeFileSync } from 'node:fs';
import { openApiFile } from '../shared/openapi/document';

/**
 * `npm run openapi`: writes the OpenAPI document to openapi.json at the repository root, as
 * `GET /openapi.json` serves it but for its servers, which name `{base_url}` instead of the
 * request's, and indented for reading.
 */
const target = new URL('../openapi.json', import.meta.url);
writeFileSync(target, openApiFile());
process.stdout.write(`Wrote ${target.pathname}\n`);
