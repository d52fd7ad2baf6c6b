import type { ConsoleAccountResponse } from '../../console-accounts/dto/console-account.response.js';
import type { FieldError } from '../../common/problems/problem-error.js';
import { html, type Html } from '../html.js';
import { logInAddress, signUpAddress } from '../return-path.js';
import { csrfField, errorSummary, fieldError, fieldHint, invalidAttributes, layout, type PageContext } from './layout.js';

interface LogInForm {
  readonly email?: string;
  readonly failed?: boolean;
  /** A session of this browser ended: say so, for the person who was working a moment ago. */
  readonly ended?: boolean;
  /** The console page to go back to once signed in (checked by safeReturnPath). */
  readonly returnTo?: string | null;
}

export function logInPage(context: PageContext, form: LogInForm = {}): Html {
  return layout(
    context,
    { title: 'Log in' },
    html`<section class="card narrow">
  <h1>Log in</h1>
  ${form.ended && !form.failed ? html`<p class="notice" role="status" data-status="signed_out">You were signed out; sign in again.</p>` : ''}
  ${form.failed ? html`<p class="form-error" role="alert" data-error-code="invalid_credentials">Email or password is incorrect.</p>` : ''}
  <form method="post" action="/console/login" class="stack">
    ${csrfField(context)}${form.returnTo ? html`<input type="hidden" name="return" value="${form.returnTo}">` : ''}
    <label for="email">Email</label>
    <input id="email" name="email" type="email" autocomplete="username" required value="${form.email ?? ''}">
    <label for="password">Password</label>
    <input id="password" name="password" type="password" autocomplete="current-password" required>
    <button type="submit" class="primary">Log in</button>
  </form>
  <p class="muted">New here? <a href="${signUpAddress(form.returnTo ?? null)}">Create an account</a> with your merchant admin key.</p>
</section>`,
  );
}

export function signUpPage(
  context: PageContext,
  form: { email?: string; errors?: readonly FieldError[]; /** Checked by safeReturnPath. */ returnTo?: string | null } = {},
): Html {
  const errors = form.errors ?? [];
  return layout(
    context,
    { title: 'Create an account', invalid: errors.length > 0 },
    html`<section class="card narrow">
  <h1>Create an account</h1>
  <p>To create an account you need your merchant’s <strong>admin key</strong>: the secret that starts with
  <code>sfk_</code>, shown once when your merchant was set up on this Size-Fit service. Whoever runs the service (or
  your developer) has it. It proves you speak for the merchant; it is not stored with your account.</p>
  <p class="muted small">Your account lasts as long as that key: if the key is revoked, the account is removed.</p>
  ${errorSummary(errors, { admin_key: 'admin_key', email: 'email', password: 'password' })}
  <form method="post" action="/console/signup" class="stack">
    ${csrfField(context)}${form.returnTo ? html`<input type="hidden" name="return" value="${form.returnTo}">` : ''}
    <label for="admin_key">Merchant admin key</label>
    <input id="admin_key" name="admin_key" type="password" autocomplete="off" spellcheck="false" required placeholder="sfk_…"${invalidAttributes(errors, 'admin_key', { hint: true })}>
    ${fieldHint('admin_key', 'The key for all of the merchant’s stores, not a key issued for one store. It starts with sfk_.')}
    ${fieldError(errors, 'admin_key')}
    <label for="email">Email</label>
    <input id="email" name="email" type="email" autocomplete="username" required value="${form.email ?? ''}"${invalidAttributes(errors, 'email')}>
    ${fieldError(errors, 'email')}
    <label for="password">Password</label>
    <input id="password" name="password" type="password" autocomplete="new-password" required minlength="12" maxlength="256"${invalidAttributes(errors, 'password', { hint: true })}>
    ${fieldHint('password', 'At least 12 characters. A few unrelated words make a good one.')}
    ${fieldError(errors, 'password')}
    <button type="submit" class="primary">Create account</button>
  </form>
  <p class="muted">Already have an account? <a href="${logInAddress({ ended: false, back: form.returnTo ?? null })}">Log in</a>.</p>
</section>`,
  );
}

interface ErrorPage {
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

interface AccessPage {
  readonly accounts: readonly ConsoleAccountResponse[];
  readonly more: string | null;
  /** The signed-in account, marked "you". */
  readonly ownId: string;
}

/** Everyone who can sign in to this merchant's console, each removable. */
export function accessPage(context: PageContext, page: AccessPage): Html {
  return layout(
    context,
    { title: 'Console access', breadcrumbs: [{ label: 'Stores', href: '/console' }, { label: 'Console access' }] },
    html`<h1>Console access</h1>
<section class="card" id="accounts">
  <p class="muted">Everyone who can sign in to this merchant’s console. Each account lasts as long as the admin key it
  signed up with: revoking that key removes the account. The API lists the same at <code>/v1/console-accounts</code>.</p>
  <div class="table-wrap"><table class="accounts">
  <thead><tr><th>Email</th><th>Signed up with key</th><th>Created</th><th>Last sign-in</th><th><span class="visually-hidden">Actions</span></th></tr></thead>
  <tbody>${page.accounts.map((account) => {
    const own = account.id === page.ownId;
    return html`<tr data-account-id="${account.id}">
    <td class="email">${account.email}${own ? html` <span class="badge active">you</span>` : ''}</td>
    <td class="key">${account.api_key_name} <code>${account.api_key_prefix}…</code></td>
    <td class="created" data-label="Created">${account.created_at.slice(0, 10)}</td>
    <td class="last" data-label="Last sign-in">${account.last_signed_in_at ? account.last_signed_in_at.slice(0, 16).replace('T', ' ') : html`<span class="muted">never</span>`}</td>
    <td class="actions"><form method="post" action="/console/access/${account.id}/remove" data-confirm="${own ? 'Remove your own account? You will be signed out.' : `Remove ${account.email}? Their sessions end at once.`}">
      ${csrfField(context)}<button type="submit" class="danger small">Remove<span class="visually-hidden"> ${account.email}</span></button></form></td>
  </tr>`;
  })}</tbody>
  </table></div>
  ${page.more ? html`<p><a href="/console/access?after=${page.more}">Older accounts →</a></p>` : ''}
</section>`,
  );
}

export function passwordPage(context: PageContext, form: { errors?: readonly FieldError[]; changed?: boolean } = {}): Html {
  const errors = form.errors ?? [];
  return layout(
    context,
    {
      title: 'Change password',
      invalid: errors.length > 0,
      breadcrumbs: [{ label: 'Stores', href: '/console' }, { label: 'Change password' }],
    },
    html`<section class="card narrow">
  <h1>Change password</h1>
  ${
    form.changed
      ? html`<p class="notice" role="status" data-status="password_changed">Your password is changed. Every other browser signed in to this account has been signed out.</p>`
      : html`<p class="muted">Changing it signs out every other browser signed in to this account.</p>`
  }
  ${errorSummary(errors, { current_password: 'current_password', new_password: 'new_password' })}
  <form method="post" action="/console/password" class="stack">
    ${csrfField(context)}
    <label for="current_password">Current password</label>
    <input id="current_password" name="current_password" type="password" autocomplete="current-password" required${invalidAttributes(errors, 'current_password')}>
    ${fieldError(errors, 'current_password')}
    <label for="new_password">New password</label>
    <input id="new_password" name="new_password" type="password" autocomplete="new-password" required minlength="12" maxlength="256"${invalidAttributes(errors, 'new_password', { hint: true })}>
    ${fieldHint('new_password', 'At least 12 characters.')}
    ${fieldError(errors, 'new_password')}
    <button type="submit" class="primary">Change password</button>
  </form>
</section>`,
  );
}
