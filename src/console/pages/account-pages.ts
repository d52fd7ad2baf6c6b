import type { FieldError } from '../../common/problems/problem.error.js';
import { html, type Html } from '../html.js';
import { csrfField, fieldError, invalidAttributes, layout, otherErrors, type PageContext } from './layout.js';

export function logInPage(context: PageContext, form: { email?: string; failed?: boolean } = {}): Html {
  return layout(
    context,
    { title: 'Log in' },
    html`<section class="card narrow">
  <h1>Log in</h1>
  ${form.failed ? html`<p class="form-error" role="alert" data-error-code="invalid_credentials">Email or password is incorrect.</p>` : ''}
  <form method="post" action="/console/login" class="stack">
    ${csrfField(context)}
    <label for="email">Email</label>
    <input id="email" name="email" type="email" autocomplete="username" required value="${form.email ?? ''}">
    <label for="password">Password</label>
    <input id="password" name="password" type="password" autocomplete="current-password" required>
    <button type="submit" class="primary">Log in</button>
  </form>
  <p class="muted">New here? <a href="/console/signup">Create an account</a> with your merchant admin key.</p>
</section>`,
  );
}

export function signUpPage(context: PageContext, form: { email?: string; errors?: readonly FieldError[] } = {}): Html {
  const errors = form.errors ?? [];
  return layout(
    context,
    { title: 'Create an account' },
    html`<section class="card narrow">
  <h1>Create an account</h1>
  <p class="muted">Use the unrestricted admin key you received when your merchant was created (<code>POST /v1/merchants</code>).
  It proves you speak for the merchant; it is not stored with your account.</p>
  ${otherErrors(errors, ['admin_key', 'email', 'password'])}
  <form method="post" action="/console/signup" class="stack">
    ${csrfField(context)}
    <label for="admin_key">Merchant admin key</label>
    <input id="admin_key" name="admin_key" type="password" autocomplete="off" spellcheck="false" required placeholder="sfk_…"${invalidAttributes(errors, 'admin_key')}>
    ${fieldError(errors, 'admin_key')}
    <label for="email">Email</label>
    <input id="email" name="email" type="email" autocomplete="username" required value="${form.email ?? ''}"${invalidAttributes(errors, 'email')}>
    ${fieldError(errors, 'email')}
    <label for="password">Password</label>
    <input id="password" name="password" type="password" autocomplete="new-password" required minlength="12" maxlength="256"${invalidAttributes(errors, 'password')}>
    <p class="hint">At least 12 characters. A few unrelated words make a good one.</p>
    ${fieldError(errors, 'password')}
    <button type="submit" class="primary">Create account</button>
  </form>
  <p class="muted">Already have an account? <a href="/console/login">Log in</a>.</p>
</section>`,
  );
}

export interface ErrorPage {
  readonly status: number;
  readonly code: string;
  readonly title: string;
  readonly message: string;
  readonly back?: { readonly href: string; readonly label: string };
  readonly requestId?: string;
}

export function errorPage(context: PageContext, page: ErrorPage): Html {
  return layout(
    context,
    { title: page.title, errorCode: page.code },
    html`<section class="card narrow error">
  <p class="status">Error ${page.status}</p>
  <h1>${page.title}</h1>
  <p>${page.message}</p>
  ${page.requestId ? html`<p class="muted small">Request id: <code>${page.requestId}</code></p>` : ''}
  <p><a class="button" href="${page.back?.href ?? '/console'}">${page.back?.label ?? 'Back to the console'}</a></p>
</section>`,
  );
}
