import { describe, expect, it } from 'vitest';
import { escapeHtml, renderInline, renderMarkdown } from './markdown.js';

describe('renderMarkdown', () => {
  it('code spans, bold, emphasis and links', () => {
    expect(renderInline('`status` is `degraded` when **no** snapshot; see [the README](https://example.com/a?b=1&c=2).')).toBe(
      '<code>status</code> is <code>degraded</code> when <strong>no</strong> snapshot; see <a href="https://example.com/a?b=1&amp;c=2">the README</a>.',
    );
    expect(renderInline('an *emphasised* word, not a 2*3*4 product')).toBe('an <em>emphasised</em> word, not a 2*3*4 product');
    expect(renderInline('[local](/docs#getVault) and [frag](#x)')).toBe('<a href="/docs#getVault">local</a> and <a href="#x">frag</a>');
  });

  it('paragraphs and lists', () => {
    expect(renderMarkdown('First line\ncontinues.\n\n- one\n- `two`\nAfter.')).toBe(
      '<p>First line continues.</p><ul><li>one</li><li><code>two</code></li></ul><p>After.</p>',
    );
    expect(renderMarkdown('')).toBe('');
  });

  it('never lets raw HTML or a script link through', () => {
    expect(renderInline('<img src=x onerror=alert(1)> & "q"')).toBe('&lt;img src=x onerror=alert(1)&gt; &amp; &quot;q&quot;');
    expect(renderInline('[x](javascript:alert(1))')).toBe('[x](javascript:alert(1))');
    expect(renderInline('[x](//evil.example)')).toBe('[x](//evil.example)');
    expect(renderInline('`<b>` **<i>**')).toBe('<code>&lt;b&gt;</code> <strong>&lt;i&gt;</strong>');
    expect(renderInline('[a"b](https://x.example/"onmouseover=")')).toBe('<a href="https://x.example/&quot;onmouseover=&quot;">a&quot;b</a>');
    expect(escapeHtml(`'`)).toBe('&#39;');
  });
});
