import { writeFileSync } from 'node:fs';
import { openApiFile } from '../shared/openapi/document';
import { readCommandLine } from './support/cli';

readCommandLine({
  command: 'npm run openapi',
  usage: `Usage: npm run openapi

Writes the OpenAPI document, built from the route table, to openapi.json at the repository root
(run it after changing an operation; \`npm test\` fails while the file is out of date).

Options:
  --help   this text; runs nothing
`,
  options: { help: { type: 'boolean', short: 'h' } },
});

/**
 * `npm run openapi`: writes the OpenAPI document to openapi.json at the repository root, as
 * `GET /openapi.json` serves it but for its servers, which name `{base_url}` instead of the
 * request's, and indented for reading.
 */
const target = new URL('../openapi.json', import.meta.url);
writeFileSync(target, openApiFile());
process.stdout.write(`Wrote ${target.pathname}\n`);
