import { carriesRetryAfter, type ErrorCode, errorCatalogue, errorCodes } from '../http/error-catalogue';
import { errorObject } from '../http/errors';
import { gatewayErrors } from '../http/gateway-errors';
import type { Links } from '../http/links';
import { toXml } from '../http/xml';
import { errorGuide } from '../openapi/error-guide';
import { escapeHtml, markdown, page } from './html';

/** The pages every `moreInfo` links to, and their index, from the one error catalogue. */

const errorPagePath = (code: ErrorCode) => `/documentation/errors/${code}.html`;

const exampleBody = (code: ErrorCode, links: Links) => errorObject(code, undefined, links.baseUrl);

/** `Retry-After` as an error of this code is sent with it, if it is. */
const retryAfterLine = (code: ErrorCode, status: number) =>
  carriesRetryAfter(status)
    ? `Retry-After: ${gatewayErrors.find((error) => error.code === code)?.headers?.['Retry-After'] ?? '1'}\n`
    : '';

const headerLinks = (links: Links) => [
  { href: links.to('/documentation/errors/'), text: 'All error codes' },
  { href: links.to('/documentation'), text: 'API reference' },
];

export const renderErrorPage = (code: ErrorCode, links: Links): string => {
  const entry = { ...errorCatalogue[code], ...errorGuide[code] };
  const body = exampleBody(code, links);
  const json = JSON.stringify(body, null, 2);
  const xml = toXml('error', body);
  return page({
    title: `Error ${code}: ${entry.title}`,
    subtitle: `HTTP status ${entry.status}`,
    links: headerLinks(links),
    body: `<main class="narrow">
<dl class="facts">
<dt>Error code</dt><dd><code>${code}</code></dd>
<dt>HTTP status</dt><dd><span class="status s${String(entry.status).charAt(0)}">${entry.status}</span></dd>
<dt>Message for users</dt><dd>${escapeHtml(entry.userMessage)}</dd>
</dl>
<h2 id="what">What happened</h2>
${markdown(entry.developerMessage)}
<h2 id="cause">Why it happens</h2>
${markdown(entry.cause)}
<h2 id="fix">How to fix it</h2>
${markdown(entry.fix)}
<h2 id="example">Example response</h2>
<p>The <code>developerMessage</code> of a real response names the exact field, parameter or header concerned.</p>
<pre><code>HTTP/1.1 ${entry.status}
Content-Type: application/json; charset=utf-8
Vary: Accept
${retryAfterLine(code, entry.status)}
${escapeHtml(json)}</code></pre>
<p>The same error in XML (a request for XML gets errors in XML too):</p>
<pre><code>${escapeHtml(xml)}</code></pre>
</main>`,
  });
};

export const renderErrorIndex = (links: Links): string => {
  const rows = errorCodes
    .map((code) => {
      const entry = { ...errorCatalogue[code], ...errorGuide[code] };
      return `<tr id="e${code}"><td><a href="${escapeHtml(links.to(errorPagePath(code)))}"><code>${code}</code></a></td><td><span class="status s${String(entry.status).charAt(0)}">${entry.status}</span></td><td>${escapeHtml(entry.title)}</td><td>${markdown(entry.cause)}</td></tr>`;
    })
    .join('\n');
  return page({
    title: 'Error codes',
    subtitle:
      'Every error response carries `developerMessage`, `userMessage`, `errorCode` and `moreInfo`; `errorCode` starts with the HTTP status.',
    links: [{ href: links.to('/documentation'), text: 'API reference' }],
    body: `<main class="narrow">
<table>
<thead><tr><th>Code</th><th>Status</th><th>Error</th><th>Why it happens</th></tr></thead>
<tbody>
${rows}
</tbody>
</table>
</main>`,
  });
};
