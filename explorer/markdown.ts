// The Markdown of OpenAPI descriptions as HTML, for /docs (rendered at build time by
// scripts/buildExplorer.mjs): `code`, **bold**, *emphasis*, [links](https://…), "- " lists and
// paragraphs. Everything is escaped first, so no raw HTML of a description ever reaches the
// page; a link target that is not http(s), a path or a fragment stays text.

const ESCAPES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

const SAFE_HREF = /^(?:https?:\/\/|\/(?!\/)|#)/;

/** One line of inline Markdown (escaped input in, HTML out). Code spans are left alone inside. */
function inline(text: string): string {
  const codes: string[] = [];
  // code spans first, so nothing inside them is read as Markdown
  let out = escapeHtml(text).replace(/`([^`]+)`/g, (_, code: string) => {
    codes.push(`<code>${code}</code>`);
    return `\uE000${codes.length - 1}\uE000`;
  });
  out = out
    .replace(/\[([^\]]+)\]\(([^)\s]+)\)/g, (whole, label: string, href: string) => {
      // the href was escaped with the rest; undo only &amp; to test the scheme
      const raw = href.replace(/&amp;/g, '&');
      return SAFE_HREF.test(raw) ? `<a href="${href}">${label}</a>` : whole;
    })
    .replace(/\*\*([^*]+)\*\*/g, '<strong>$1</strong>')
    .replace(/(^|[^*\w])\*([^*\s][^*]*)\*(?!\w)/g, '$1<em>$2</em>');
  return out.replace(/\uE000(\d+)\uE000/g, (_, i: string) => codes[Number(i)]!);
}

/** Paragraphs and "- " lists of `markdown` as HTML; an empty text gives "". */
export function renderMarkdown(markdown: string): string {
  const blocks: string[] = [];
  let para: string[] = [];
  let list: string[] = [];
  const flush = () => {
    if (para.length) blocks.push(`<p>${inline(para.join(' '))}</p>`);
    if (list.length) blocks.push(`<ul>${list.map((li) => `<li>${inline(li)}</li>`).join('')}</ul>`);
    para = [];
    list = [];
  };
  for (const raw of markdown.split('\n')) {
    const line = raw.trim();
    const item = /^[-*]\s+(.*)$/.exec(line);
    if (line === '') flush();
    else if (item) {
      if (para.length) flush();
      list.push(item[1]!);
    } else {
      if (list.length) flush();
      para.push(line);
    }
  }
  flush();
  return blocks.join('');
}

/** A one-line description (a table cell): inline Markdown only, no paragraph. */
export function renderInline(markdown: string): string {
  return inline(markdown.replace(/\s*\n\s*/g, ' ').trim());
}
