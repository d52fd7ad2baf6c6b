import type { FieldError } from '../../common/problems/problem-error.js';
import { assetUrl } from '../console-assets.js';
import { Html, html, type HtmlValue } from '../html.js';

/** What every page knows about the request it answers. */
export interface PageContext {
  /** The token every form of this page carries. */
  readonly csrfToken: string;
  /** The signed-in account's email; null before sign-in. */
  readonly email: string | null;
}

interface LayoutOptions {
  readonly title: string;
  /** A refused form shows field errors: the title says so first, as the browser tab and screen readers read it. */
  readonly invalid?: boolean;
  /** Error pages name their code on `<main>`, for people reading the source and for tests. */
  readonly errorCode?: string;
  /** Pages that draw charts load uPlot. */
  readonly chart?: boolean;
  readonly breadcrumbs?: ReadonlyArray<{ readonly label: string; readonly href?: string }>;
}

export function layout(context: PageContext, options: LayoutOptions, body: HtmlValue): Html {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="same-origin">
<link rel="icon" href="data:,">
<title>${options.invalid ? 'Error: ' : ''}${options.title} · Size-Fit console</title>
<link rel="stylesheet" href="${assetUrl('console.css')}">
${options.chart ? html`<link rel="stylesheet" href="${assetUrl('uplot.css')}">` : ''}
</head>
<body>
<a class="skip-link visually-hidden-focusable" href="#content">Skip to content</a>
<header class="topbar"><div class="topbar-inner">
  <a class="brand" href="/console">Size-Fit <span>console</span></a>
  ${
    context.email === null
      ? ''
      : html`<div class="account">
    <span id="account-email">${context.email}</span>
    <a href="/console/access">Access</a>
    <a href="/console/password">Password</a>
    <form method="post" action="/console/logout">${csrfField(context)}<button type="submit" class="link">Log out</button></form>
  </div>`
  }
</div></header>
<main class="page" id="content" tabindex="-1"${options.errorCode ? html` data-error-code="${options.errorCode}"` : ''}>
${options.breadcrumbs?.length ? breadcrumbs(options.breadcrumbs) : ''}
${body}
</main>
${options.chart ? html`<script src="${assetUrl('uplot.js')}" defer></script>` : ''}
<script src="${assetUrl('console.js')}" defer></script>
</body>
</html>
`;
}

export const csrfField = (context: PageContext): Html => html`<input type="hidden" name="_csrf" value="${context.csrfToken}">`;

/** The message under a field, when that field has one. */
export function fieldError(errors: readonly FieldError[], field: string): Html {
  const error = errors.find((candidate) => candidate.field === field);
  return error ? html`<p class="field-error" id="${field}-error" data-field="${field}">${error.message}</p>` : html``;
}

/**
 * `aria-invalid` and the link to the message, for a field's input; with `hint`, the field's hint is linked too
 * (`<p class="hint" id="${field}-hint">`, see fieldHint).
 */
export function invalidAttributes(errors: readonly FieldError[], field: string, options: { readonly hint?: boolean } = {}): Html {
  const invalid = errors.some((error) => error.field === field);
  const describedBy = [options.hint ? `${field}-hint` : '', invalid ? `${field}-error` : ''].filter(Boolean).join(' ');
  return html`${invalid ? html` aria-invalid="true"` : ''}${describedBy ? html` aria-describedby="${describedBy}"` : ''}`;
}

/** The hint under a field, which its input names in `aria-describedby` (invalidAttributes with `hint`). */
export function fieldHint(field: string, text: string): Html {
  return html`<p class="hint" id="${field}-hint">${text}</p>`;
}

/** The fields a form shows: each field's name → the id of its input, where the error summary links. */
type ShownFields = Readonly<Record<string, string>>;

/**
 * At the top of a refused form: a summary announced at once, linking to each invalid field; then errors about
 * fields the form does not show (there should be none), which still reach the person.
 */
export function errorSummary(errors: readonly FieldError[], shown: ShownFields): Html {
  const listed = errors.filter((error) => Object.hasOwn(shown, error.field));
  const rest = errors.filter((error) => !Object.hasOwn(shown, error.field));
  return html`${
    listed.length
      ? html`<div class="error-summary" role="alert" aria-labelledby="error-summary-title">
    <h2 id="error-summary-title">There is a problem</h2>
    <ul>${listed.map((error) => html`<li><a href="#${shown[error.field]}">${error.message}</a></li>`)}</ul>
  </div>`
      : ''
  }${rest.map((error) => html`<p class="form-error" data-error-code="${error.code}">${error.message}</p>`)}`;
}

function breadcrumbs(items: NonNullable<LayoutOptions['breadcrumbs']>): Html {
  return html`<nav class="breadcrumbs" aria-label="Breadcrumbs"><ol>${items.map((item) =>
    item.href ? html`<li><a href="${item.href}">${item.label}</a></li>` : html`<li aria-current="page">${item.label}</li>`,
  )}</ol></nav>`;
}
