/**
 * The frame of every HTML page the API serves: self-contained (inline CSS and script, no fonts,
 * scripts or images from elsewhere), because the API may run where nothing outside is reachable.
 */

export const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);

/** The little Markdown the document's prose uses: `code`, **bold**, paragraphs and `- ` lists. */
export const markdown = (text: string): string =>
  text
    .split(/\n{2,}/)
    .map((block) => {
      const lines = block.split('\n');
      if (lines.every((line) => line.startsWith('- ')))
        return `<ul>${lines.map((line) => `<li>${inline(line.slice(2))}</li>`).join('')}</ul>`;
      return `<p>${inline(block)}</p>`;
    })
    .join('\n');

const inline = (text: string) =>
  escapeHtml(text)
    .replace(/`([^`]+)`/g, '<code>$1</code>')
    .replace(/\*\*([^*]+)\*\*/g, '<strong>$1</strong>');

const styles = `
:root { --ink: #1d2330; --muted: #5a6275; --line: #dfe3ea; --soft: #f5f7fa; --accent: #0b5cad; --get: #1a7f37; --post: #9a6700; --put: #6639ba; --delete: #cf222e; --head: #57606a; }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.55 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; color: var(--ink); background: #fff; }
a { color: var(--accent); }
code, pre { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace; font-size: 13px; }
code { background: var(--soft); padding: 1px 4px; border-radius: 4px; overflow-wrap: anywhere; }
pre { background: #0f1722; color: #e6edf3; padding: 12px 14px; border-radius: 6px; overflow-x: auto; line-height: 1.45; }
pre code { background: none; padding: 0; color: inherit; overflow-wrap: normal; }
header.top { background: #0f1722; color: #fff; padding: 18px 28px; }
header.top h1 { margin: 0; font-size: 22px; }
header.top p { margin: 4px 0 0; color: #b6c2d1; }
header.top a { color: #9ecbff; }
main { padding: 8px 36px 60px; max-width: 1100px; }
main.narrow { max-width: 860px; margin: 0 auto; }
h2 { margin-top: 36px; padding-bottom: 6px; border-bottom: 1px solid var(--line); }
h3 { margin: 0; font-size: 18px; }
.method { display: inline-block; min-width: 62px; text-align: center; font: 600 12px/1 ui-monospace, Menlo, Consolas, monospace; color: #fff; padding: 5px 7px; border-radius: 4px; }
.method.get { background: var(--get); } .method.post { background: var(--post); } .method.put { background: var(--put); } .method.delete { background: var(--delete); } .method.head { background: var(--head); }
.path { font: 600 14px ui-monospace, Menlo, Consolas, monospace; }
table { border-collapse: collapse; width: 100%; margin: 8px 0 16px; font-size: 14px; }
th, td { text-align: left; vertical-align: top; padding: 6px 8px; border-bottom: 1px solid var(--line); overflow-wrap: anywhere; }
th { background: var(--soft); font-weight: 600; }
td p { margin: 0 0 6px; }
td ul { margin: 4px 0; padding-left: 18px; }
.muted { color: var(--muted); }
.status { font-weight: 700; font-family: ui-monospace, Menlo, Consolas, monospace; }
.status.s2 { color: var(--get); } .status.s3 { color: var(--head); } .status.s4 { color: var(--post); } .status.s5 { color: var(--delete); }
details { margin: 6px 0; }
details > summary { cursor: pointer; color: var(--accent); }
.badge { display: inline-block; font-size: 12px; padding: 1px 7px; border-radius: 10px; background: var(--soft); border: 1px solid var(--line); color: var(--muted); }
dl.facts { display: grid; grid-template-columns: 160px 1fr; gap: 6px 16px; }
dl.facts dt { font-weight: 600; }
dl.facts dd { margin: 0; }
@media (max-width: 800px) { main { padding: 8px 16px 40px; } }
`;

interface PageOptions {
  readonly title: string;
  readonly subtitle?: string;
  /** Links in the page header. */
  readonly links?: readonly { readonly href: string; readonly text: string }[];
  readonly body: string;
  /** Styles of this page only, after the shared ones. */
  readonly styles?: string;
  /** An inline script of this page, run at the end of the body. */
  readonly script?: string;
}

/** An icon inside the page (a magazine's M), so that browsers ask the API for no /favicon.ico and log no 404. */
const FAVICON = `data:image/svg+xml,${encodeURIComponent(
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="6" fill="#1b2433"/><path d="M7 24V8h4l5 8 5-8h4v16h-4V15l-5 8-5-8v9z" fill="#fff"/></svg>',
)}`;

export const page = ({
  title,
  subtitle,
  links = [],
  body,
  styles: own = '',
  script,
}: PageOptions): string => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<link rel="icon" href="${FAVICON}">
<style>${styles}${own}</style>
</head>
<body>
<header class="top">
<h1>${escapeHtml(title)}</h1>
${subtitle ? `<p>${inline(subtitle)}</p>` : ''}
${links.length ? `<p>${links.map((l) => `<a href="${escapeHtml(l.href)}">${escapeHtml(l.text)}</a>`).join(' · ')}</p>` : ''}
</header>
${body}
${script ? `<script>${script}</script>` : ''}
</body>
</html>
`;
