/** The reference page's own style sheet and script (reference.ts): search, and a copy button on each curl line. */

export const styles = `
[hidden] { display: none !important; }
.layout { display: grid; grid-template-columns: 250px minmax(0, 1fr); }
.layout > main { max-width: none; padding: 8px 28px 60px; min-width: 0; }
nav.toc { position: sticky; top: 0; align-self: start; max-height: 100vh; overflow-y: auto; padding: 14px 12px 40px 20px; border-right: 1px solid var(--line); font-size: 14px; min-width: 0; }
nav.toc h2 { font-size: 12px; text-transform: uppercase; letter-spacing: .06em; color: var(--muted); margin: 18px 0 6px; border: 0; padding: 0; }
nav.toc ul { list-style: none; margin: 0; padding: 0; }
nav.toc li { margin: 3px 0; }
nav.toc a { text-decoration: none; color: var(--ink); }
nav.toc a:hover { color: var(--accent); }
nav.toc .method { min-width: 52px; font-size: 11px; padding: 3px 5px; }
/* Above the entries scrolling under it (their method badges paint in their own layer), and as wide as the nav with its padding, so no entry shows beside or above it. */
.search { position: sticky; top: 0; z-index: 2; background: #fff; margin: 0 -12px 0 -20px; padding: 4px 12px 8px 20px; border-bottom: 1px solid var(--line); }
.search input { width: 100%; font: inherit; padding: 7px 10px; border: 1px solid var(--line); border-radius: 6px; }
.search input:focus { outline: 2px solid var(--accent); outline-offset: 0; }
#no-match { color: var(--muted); }
section.operation { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 0.9fr); border: 1px solid var(--line); border-radius: 8px; margin: 22px 0; overflow: hidden; }
section.operation > .doc { padding: 16px 20px; min-width: 0; }
section.operation > .samples { background: #1b2433; color: #e6edf3; min-width: 0; }
section.operation > .doc > header { display: flex; align-items: center; gap: 10px; flex-wrap: wrap; }
.samples .pinned { position: sticky; top: 0; max-height: 100vh; overflow-y: auto; padding: 16px 18px; }
.samples h4 { color: #b6c2d1; font-size: 12px; text-transform: uppercase; letter-spacing: .06em; margin: 14px 0 6px; }
.samples h4:first-child { margin-top: 0; }
.samples pre { background: #0f1722; margin: 4px 0 10px; max-height: 420px; }
.samples a { color: #9ecbff; }
.samples details > summary { color: #9ecbff; }
.samples code { background: none; color: inherit; }
ul.forms { list-style: none; margin: 0; padding: 0; }
ul.forms li { margin: 0 0 8px; }
.form-head { display: flex; flex-wrap: wrap; gap: 6px; align-items: center; font-size: 13px; }
.form-head .path { font-size: 13px; overflow-wrap: anywhere; }
.form-head code { color: #b6c2d1; }
.copyable { position: relative; }
.copyable pre { padding-right: 64px; white-space: pre-wrap; overflow-wrap: anywhere; }
button.copy { position: absolute; top: 6px; right: 6px; font: 12px system-ui, sans-serif; color: #e6edf3; background: #2d3a4f; border: 1px solid #42526b; border-radius: 4px; padding: 3px 8px; cursor: pointer; }
button.copy:hover { background: #3a4a63; }
ul.fields { list-style: none; margin: 4px 0 14px; padding: 0; border-top: 1px solid var(--line); }
ul.fields > li { padding: 7px 0; border-bottom: 1px solid var(--line); }
ul.fields .name { font-weight: 600; margin-right: 6px; }
ul.fields .rule { color: var(--muted); font-size: 14px; margin: 2px 0; }
ul.fields p { margin: 2px 0; }
.codes { font-size: 14px; margin: 2px 0 0; }
.codes a { margin-right: 4px; }
h4 { margin: 16px 0 4px; }
table.fixed { table-layout: fixed; }
@media (max-width: 1180px) { section.operation { grid-template-columns: minmax(0, 1fr); } .samples .pinned { position: static; max-height: none; } }
@media (max-width: 800px) { .layout { grid-template-columns: minmax(0, 1fr); } nav.toc { position: static; max-height: none; border-right: 0; border-bottom: 1px solid var(--line); padding: 10px 16px; } .layout > main { padding: 8px 12px 40px; } section.operation > .doc, .samples .pinned { padding: 12px; } header.top { padding: 14px 16px; } }
`;

/** Filters the operations as the reader types; copies a curl line. */
export const script = `
(() => {
  const input = document.getElementById('search');
  const sections = [...document.querySelectorAll('section.operation')];
  const empty = document.getElementById('no-match');
  const filter = () => {
    const terms = input.value.toLowerCase().split(/\\s+/).filter(Boolean);
    let shown = 0;
    for (const section of sections) {
      const hit = terms.every((term) => section.dataset.search.includes(term));
      section.hidden = !hit;
      const item = document.querySelector('nav.toc li[data-op="' + section.id + '"]');
      if (item) item.hidden = !hit;
      if (hit) shown++;
    }
    for (const group of document.querySelectorAll('[data-group]'))
      group.hidden = !group.querySelector('section.operation:not([hidden]), li[data-op]:not([hidden])');
    empty.hidden = shown > 0;
  };
  input.addEventListener('input', filter);
  document.addEventListener('keydown', (event) => {
    if (event.key === '/' && document.activeElement !== input) { event.preventDefault(); input.focus(); }
  });
  document.addEventListener('click', async (event) => {
    const button = event.target.closest('button.copy');
    if (!button) return;
    const code = button.parentElement.querySelector('code');
    try {
      await navigator.clipboard.writeText(code.textContent);
    } catch {
      const range = document.createRange();
      range.selectNodeContents(code);
      getSelection().removeAllRanges();
      getSelection().addRange(range);
      document.execCommand('copy');
    }
    button.textContent = 'Copied';
    setTimeout(() => { button.textContent = 'Copy'; }, 1500);
  });
})();
`;
