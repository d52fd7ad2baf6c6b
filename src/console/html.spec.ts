import { describe, expect, it } from '@jest/globals';
import { html, jsonScript } from './html.js';

describe('html templates', () => {
  it('escapes interpolated text, in content and in attributes', () => {
    const name = `<script>alert("x")</script> & 'quotes'`;
    expect(html`<p title="${name}">${name}</p>`.value).toBe(
      '<p title="&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;quotes&#39;">' +
        '&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;quotes&#39;</p>',
    );
  });

  it('keeps nested templates and lists as they are, and drops null, undefined and booleans', () => {
    const items = ['a<b', 'c'].map((item) => html`<li>${item}</li>`);
    expect(html`<ul>${items}</ul>${null}${undefined}${false}${0}`.value).toBe('<ul><li>a&lt;b</li><li>c</li></ul>0');
  });

  it('writes JSON that cannot close its script element', () => {
    expect(jsonScript({ name: '</script><script>alert(1)</script>' }).value).not.toContain('</script>');
    expect(JSON.parse(jsonScript({ name: '</script>' }).value)).toEqual({ name: '</script>' });
  });
});
