import { assetUrl } from './console/console-assets.js';

/**
 * `GET /`: where a person who opens the service's address lands. A fixed page, nothing in it from a request, in the
 * console's look, that points to what there is: the seller console, the API reference and the health check.
 */
export function homePage(): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<title>Size-Fit</title>
<link rel="stylesheet" href="${assetUrl('console.css')}">
</head>
<body>
<header class="topbar"><div class="topbar-inner"><a class="brand" href="/">Size-Fit</a></div></header>
<main class="page" id="content">
<h1>Size-Fit</h1>
<p>This service helps online shoppers pick the right size, and tells merchants how their sizes fit.</p>
<div class="card stack">
<p><a href="/console">Seller console</a>: sign in to set up your stores, keys and products, and to see how they do.</p>
<p><a href="/docs">API reference</a>: every route, for the developers who connect a shop (also as
<a href="/openapi.json">OpenAPI JSON</a>).</p>
<p><a href="/readyz">Health</a>: whether the service and its database answer.</p>
</div>
</main>
</body>
</html>
`;
}

/** The console's policy, less what the page does not do: no script, no form, no frame. */
export const HOME_PAGE_POLICY = [
  "default-src 'none'",
  "style-src 'self'",
  "img-src 'self' data:",
  "form-action 'none'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');
