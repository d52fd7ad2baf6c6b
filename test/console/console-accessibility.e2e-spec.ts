import { describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { useApp } from '../support/app.js';
import { ConsoleClient, find, findAll, PASSWORD, signUp, uniqueEmail } from '../support/console-client.js';
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

  /** The ids an input's aria-describedby names, each of an element on the page. */
  const describedBy = (page: string, id: string): string[] => {
    const ids = (find(page, 'input', { id }).attrs['aria-describedby'] ?? '').split(/\s+/).filter(Boolean);
    for (const target of ids) expect(findAll(page, '*', { id: target })).toHaveLength(1);
    return ids;
  };

  it('ties the password hint of the sign-up form to its input, beside the error when there is one', async () => {
    const tenant = await createTenant(t);
    const browser = new ConsoleClient(t);
    const form = (await browser.page('/console/signup')).text;
    const ids = describedBy(form, 'password');
    expect(ids).toHaveLength(1);
    expect(find(form, 'p', { id: ids[0] }).text).toMatch(/^At least 12 characters/);

    const refused = await browser.submitSignUp({ admin_key: tenant.admin.secret, email: uniqueEmail(), password: 'short' });
    expect(refused.status).toBe(422);
    expect(describedBy(refused.text, 'password')).toEqual([ids[0], 'password-error']);
    expect(find(refused.text, 'input', { id: 'password' }).attrs['aria-invalid']).toBe('true');
  });

  it('ties the new-password hint of the change-password form to its input, beside the error when there is one', async () => {
    const me = await signUp(t, await createTenant(t));
    const form = (await me.page('/console/password')).text;
    const ids = describedBy(form, 'new_password');
    expect(ids).toHaveLength(1);
    expect(find(form, 'p', { id: ids[0] }).text).toBe('At least 12 characters.');

    const wrongCurrent = await me.post('/console/password', { current_password: `${PASSWORD} no`, new_password: `${PASSWORD} new` });
    expect(wrongCurrent.status).toBe(422);
    expect(describedBy(wrongCurrent.text, 'new_password')).toEqual([ids[0]]);
    expect(describedBy(wrongCurrent.text, 'current_password')).toEqual(['current_password-error']);

    const short = await me.post('/console/password', { current_password: PASSWORD, new_password: 'short' });
    expect(short.status).toBe(422);
    expect(describedBy(short.text, 'new_password')).toEqual([ids[0], 'new_password-error']);
  });
});
