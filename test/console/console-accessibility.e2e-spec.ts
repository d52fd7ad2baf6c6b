import { describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { useApp } from '../support/app.js';
import { ConsoleClient, findAll, signUp } from '../support/console-client.js';
import { createTenant } from '../support/fixtures.js';

/** The console for people on a keyboard or a screen reader: skipping the header, hints and errors tied to their fields. */

describe('seller console accessibility', () => {
  const t = useApp();

  it('opens every page with a "Skip to content" link to its <main>, before any other link or control', async () => {
    const tenant = await createTenant(t);
    const anonymous = new ConsoleClient(t);
    const me = await signUp(t, tenant);
    const pages = [
      (await anonymous.get('/console/login')).text,
      (await anonymous.get('/console/signup')).text,
      (await me.get('/console')).text,
      (await me.get(`/console/stores/${tenant.storeId}`)).text,
      (await me.get(`/console/stores/${tenant.storeId}/metrics`)).text,
      (await me.get('/console/access')).text,
      (await me.get('/console/password')).text,
      (await me.get(`/console/stores/${randomUUID()}`)).text,
    ];
    for (const page of pages) {
      const body = page.slice(page.indexOf('<body'));
      const first = /<(a|button|input|select|textarea)\b((?:[^>"']|"[^"]*")*)>/i.exec(body);
      expect(first?.[1]).toBe('a');
      const link = findAll(body, 'a')[0];
      expect(link.text).toBe('Skip to content');
      expect(link.attrs.href).toMatch(/^#./);
      const main = findAll(page, 'main', { id: link.attrs.href.slice(1) });
      expect(main).toHaveLength(1);
      expect(main[0].attrs.tabindex).toBe('-1');
    }
  });
});
