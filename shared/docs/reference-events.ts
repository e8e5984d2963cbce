import type { OpenApiDocument } from '../openapi/document';
import { escapeHtml, markdown } from './html';

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The reference page's section of change events: the document's webhooks, each with its schema. */
export const eventsSection = (
  document: OpenApiDocument,
  eventsTag: { readonly description?: string } | undefined,
): string => {
  const webhooks = Object.entries(document.webhooks ?? {}).flatMap(([name, item]) => {
    const post = isObject(item) && isObject(item.post) ? item.post : undefined;
    return post ? [{ name, summary: String(post.summary ?? '') }] : [];
  });
  return `<section id="events">
<h2>Change events</h2>
${markdown(eventsTag?.description ?? '')}
<table class="fixed"><thead><tr><th style="width: 24%">detail-type</th><th>When</th><th style="width: 24%">Schema</th></tr></thead><tbody>${webhooks
    .map(
      (event) =>
        `<tr><td><code>${escapeHtml(event.name)}</code></td><td>${markdown(event.summary)}</td><td><a href="#schema-${escapeHtml(event.name)}Event">${escapeHtml(event.name)}Event</a></td></tr>`,
    )
    .join('')}</tbody></table>
</section>`;
};
