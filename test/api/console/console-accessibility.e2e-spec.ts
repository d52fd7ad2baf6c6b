import { describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { useApp } from '../../support/app.js';
import { ConsoleClient, expectSeeOther, fieldErrors, find, findAll, PASSWORD, signUp, uniqueEmail } from '../../support/console-client.js';
import { createTenant } from '../../support/fixtures.js';

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
      (await me.get(`/console/stores/${tenant.storeId}/charts`)).text,
      (await me.get(`/console/stores/${tenant.storeId}/product-types`)).text,
      (await me.get(`/console/stores/${tenant.storeId}/products`)).text,
      (await me.get(`/console/stores/${tenant.storeId}/status`)).text,
      (await me.get(`/console/stores/${tenant.storeId}/experiments`)).text,
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

  /** The page's title, and its error summary: where each link leads and what it says. */
  const refusal = (page: string) => {
    const summaries = findAll(page, 'div', { class: 'error-summary' });
    return {
      title: find(page, 'title').text,
      summaries: summaries.map((summary) => ({
        role: summary.attrs.role,
        heading: findAll(summary.inner, 'h2')[0]?.text,
        links: findAll(summary.inner, 'a').map((a) => ({ href: a.attrs.href, text: a.text })),
      })),
    };
  };

  it('refuses a sign-up with "Error:" in the title and a summary at the top of the form linking to each invalid field', async () => {
    const tenant = await createTenant(t);
    const browser = new ConsoleClient(t);
    expect(refusal((await browser.page('/console/signup')).text)).toEqual({ title: 'Create an account · Size-Fit console', summaries: [] });

    const refused = await browser.submitSignUp({ admin_key: tenant.admin.secret, email: 'not an email', password: 'short' });
    expect(refused.status).toBe(422);
    const errors = fieldErrors(refused.text);
    expect(Object.keys(errors).sort()).toEqual(['email', 'password']);
    const { title, summaries } = refusal(refused.text);
    expect(title).toBe('Error: Create an account · Size-Fit console');
    expect(summaries).toEqual([
      {
        role: 'alert',
        heading: 'There is a problem',
        links: expect.arrayContaining([
          { href: '#email', text: errors.email },
          { href: '#password', text: errors.password },
        ]) as unknown,
      },
    ]);
    expect(summaries[0].links).toHaveLength(2);
    // before the form it speaks of
    expect(refused.text.indexOf('class="error-summary"')).toBeLessThan(refused.text.indexOf('action="/console/signup"'));
    for (const { href } of summaries[0].links) expect(findAll(refused.text, 'input', { id: href.slice(1) })).toHaveLength(1);
  });

  it('refuses a key to issue with "Error:" in the title and a summary linking to the invalid fields', async () => {
    const tenant = await createTenant(t);
    const me = await signUp(t, tenant);
    const store = (await me.page(`/console/stores/${tenant.storeId}`)).text;
    const { title } = refusal(store);
    expect(title).not.toMatch(/^Error/);
    expect(refusal(store).summaries).toEqual([]);

    const refused = await me.post(`/console/stores/${tenant.storeId}/keys`, { name: '' });
    expect(refused.status).toBe(422);
    const errors = fieldErrors(refused.text);
    expect(Object.keys(errors).sort()).toEqual(['name', 'scopes']);
    expect(refusal(refused.text)).toEqual({
      title: `Error: ${title}`,
      summaries: [
        {
          role: 'alert',
          heading: 'There is a problem',
          links: expect.arrayContaining([
            { href: '#key-name', text: errors.name },
            { href: '#key-scope-admin', text: errors.scopes },
          ]) as unknown,
        },
      ],
    });
    expect(findAll(refused.text, 'input', { id: 'key-name' })).toHaveLength(1);
    expect(findAll(refused.text, 'input', { id: 'key-scope-admin', name: 'scopes' })).toHaveLength(1);
  });

  it('refuses a metrics range and a new password the same way', async () => {
    const tenant = await createTenant(t);
    const me = await signUp(t, tenant);
    const range = await me.get(`/console/stores/${tenant.storeId}/metrics?from=2026-03-01&to=2026-01-01`);
    expect(range.status).toBe(422);
    expect(refusal(range.text).title).toMatch(/^Error: /);
    expect(refusal(range.text).summaries[0].links.map((link) => link.href)).toEqual(
      Object.keys(fieldErrors(range.text)).map((field) => `#${field}`),
    );
    await me.page('/console/password');
    const short = await me.post('/console/password', { current_password: PASSWORD, new_password: 'short' });
    expect(refusal(short.text)).toEqual({
      title: 'Error: Change password · Size-Fit console',
      summaries: [
        { role: 'alert', heading: 'There is a problem', links: [{ href: '#new_password', text: fieldErrors(short.text).new_password }] },
      ],
    });
  });

  describe('the page to come back to after signing in', () => {
    const back = '/console/access?after=x';
    const query = new URLSearchParams({ return: back }).toString();

    it('is kept by the way from log in to sign up and back, and sign-up leads there', async () => {
      const tenant = await createTenant(t);
      const browser = new ConsoleClient(t);
      const logInForm = (await browser.page(`/console/login?${query}`)).text;
      const toSignUp = find(logInForm, 'a', { href: `/console/signup?${query}` });
      expect(toSignUp.text).toBe('Create an account');

      const signUpForm = (await browser.page(toSignUp.attrs.href)).text;
      expect(find(signUpForm, 'input', { name: 'return' }).attrs.value).toBe(back);
      expect(findAll(signUpForm, 'a', { href: `/console/login?${query}` })).toHaveLength(1);

      const refused = await browser.post('/console/signup', {
        admin_key: tenant.admin.secret,
        email: uniqueEmail(),
        password: 'short',
        return: back,
      });
      expect(refused.status).toBe(422);
      expect(find(refused.text, 'input', { name: 'return' }).attrs.value).toBe(back);
      const done = await browser.post('/console/signup', {
        admin_key: tenant.admin.secret,
        email: uniqueEmail(),
        password: PASSWORD,
        return: back,
      });
      expectSeeOther(done, '/console/access');
      expect(done.headers.location).toBe(back);
    });

    it('is dropped when it is not a console page to return to', async () => {
      const browser = new ConsoleClient(t);
      for (const unsafe of ['//evil.example/console/x', '/console/login', 'https://evil.example/']) {
        const page = (await browser.page(`/console/login?${new URLSearchParams({ return: unsafe }).toString()}`)).text;
        expect(findAll(page, 'a', { href: '/console/signup' })).toHaveLength(1);
        const signUpForm = (await browser.page(`/console/signup?${new URLSearchParams({ return: unsafe }).toString()}`)).text;
        expect(findAll(signUpForm, 'input', { name: 'return' })).toHaveLength(0);
        expect(findAll(signUpForm, 'a', { href: '/console/login' })).toHaveLength(1);
      }
    });

    it('is kept by the way back to log in from too many attempts', async () => {
      const me = await signUp(t, await createTenant(t));
      const browser = new ConsoleClient(t);
      await browser.page(`/console/login?${query}`);
      let answer = await browser.post('/console/login', { email: me.email, password: `${PASSWORD} no`, return: back });
      for (let i = 0; i < 10 && answer.status !== 429; i++) {
        answer = await browser.post('/console/login', { email: me.email, password: `${PASSWORD} no`, return: back });
      }
      expect(answer.status).toBe(429);
      expect(find(answer.text, 'a', { class: 'button' })).toEqual(
        expect.objectContaining({ text: 'Back to log in', attrs: expect.objectContaining({ href: `/console/login?${query}` }) as unknown }),
      );
    });
  });
});
