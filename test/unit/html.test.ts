import { describe, expect, test } from 'bun:test';
import { html, page } from '../../src/http/pages/html';

describe('the html tag', () => {
  test('escapes every interpolated value, in text and in attribute values', () => {
    const name = `<script>alert("x")</script>&'`;
    expect(html`<p title="${name}">${name}</p>`.text).toBe(
      '<p title="&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;">&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;</p>',
    );
  });

  test('inserts markup made by the tag as is; lists are joined; null, undefined and false are nothing', () => {
    const items = ['a<b', 'c'].map((i) => html`<li>${i}</li>`);
    expect(html`<ul>${items}</ul>${null}${undefined}${false}${0}`.text).toBe('<ul><li>a&lt;b</li><li>c</li></ul>0');
  });

  test('a plain string that looks like markup is still text', () => {
    const fragment = '<b>bold</b>';
    expect(html`${fragment}`.text).toBe('&lt;b&gt;bold&lt;/b&gt;');
  });

  test('page escapes its title', async () => {
    const res = page('<x>', html`<p>ok</p>`);
    const text = await res.text();
    expect(text).toContain('<title>&lt;x&gt; · hookcap</title>');
    expect(text).toContain('<body><p>ok</p></body>');
  });
});
