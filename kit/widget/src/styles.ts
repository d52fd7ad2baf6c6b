/**
 * The widget's look. Themed from the page with custom properties (`--size-fit-accent`, `--size-fit-accent-text`,
 * `--size-fit-text`, `--size-fit-surface`, `--size-fit-muted`, `--size-fit-error`, `--size-fit-radius`,
 * `--size-fit-font`) and `::part()` (button, dialog, title, close, form, field, label, input, hint, error, submit,
 * result, size, choose, secondary, message). Logical properties only, so right-to-left pages lay out mirrored.
 */
export const CSS = `
:host { display: inline-block; font-family: var(--size-fit-font, inherit); color: var(--size-fit-text, #1f2328); }
* { box-sizing: border-box; }
button, input, select { font: inherit; }
.open, .primary, .secondary {
  min-block-size: 44px; padding-block: 0.5em; padding-inline: 1em; border-radius: var(--size-fit-radius, 6px); cursor: pointer;
}
.open, .primary { background: var(--size-fit-accent, #1d4ed8); color: var(--size-fit-accent-text, #fff); border: 2px solid transparent; }
.secondary { background: var(--size-fit-surface, #fff); color: var(--size-fit-accent, #1d4ed8); border: 2px solid currentColor; }
:focus-visible { outline: 3px solid var(--size-fit-focus, #b45309); outline-offset: 2px; }
dialog {
  inline-size: min(34rem, calc(100vw - 1rem)); max-block-size: calc(100dvh - 1rem); padding: 0; border: 0;
  border-radius: var(--size-fit-radius, 6px); background: var(--size-fit-surface, #fff); color: var(--size-fit-text, #1f2328);
  box-shadow: 0 10px 40px rgb(0 0 0 / 0.3); overflow: auto;
}
dialog::backdrop { background: rgb(0 0 0 / 0.5); }
.head { display: flex; align-items: center; justify-content: space-between; gap: 0.5rem; padding: 1rem 1rem 0; }
h2 { margin: 0; font-size: 1.25rem; }
h2:focus { outline: none; }
h2:focus-visible { outline: 3px solid var(--size-fit-focus, #b45309); }
.close { min-inline-size: 44px; min-block-size: 44px; background: none; border: 0; font-size: 1.5rem; line-height: 1; cursor: pointer; color: inherit; }
.body { padding: 1rem; }
p { margin-block: 0 0.75rem; }
.field { margin-block-end: 1rem; border: 0; padding: 0; margin-inline: 0; min-inline-size: 0; }
label, legend { display: block; font-weight: 600; margin-block-end: 0.25rem; padding: 0; }
.option { display: flex; align-items: center; gap: 0.5rem; font-weight: 400; min-block-size: 32px; }
.option input { inline-size: 1.25rem; block-size: 1.25rem; margin: 0; }
.row { display: flex; align-items: center; gap: 0.5rem; flex-wrap: wrap; }
.number { inline-size: 7rem; max-inline-size: 100%; }
input:not([type]), input[type=text], select {
  min-block-size: 44px; padding-inline: 0.5rem; border: 1px solid var(--size-fit-muted, #57606a);
  border-radius: var(--size-fit-radius, 6px); background: var(--size-fit-surface, #fff); color: inherit;
}
[aria-invalid=true] { border: 2px solid var(--size-fit-error, #b91c1c); }
.hint { color: var(--size-fit-muted, #57606a); font-size: 0.9rem; margin-block: 0.25rem 0; }
.error { color: var(--size-fit-error, #b91c1c); font-weight: 600; margin-block: 0.25rem 0; }
.error:empty { display: none; }
.unit { min-inline-size: 2rem; }
.optional { font-weight: 400; color: var(--size-fit-muted, #57606a); }
.size { font-size: 2.5rem; font-weight: 700; margin: 0 0 0.5rem; }
.actions { display: flex; flex-wrap: wrap; gap: 0.5rem; margin-block-start: 1rem; }
.notice { padding: 0.75rem; border-inline-start: 4px solid var(--size-fit-accent, #1d4ed8); background: rgb(127 127 127 / 0.08); }
.sr-only { position: absolute; inline-size: 1px; block-size: 1px; overflow: hidden; clip-path: inset(50%); white-space: nowrap; }
ul { padding-inline-start: 1.25rem; margin-block: 0 0.75rem; }
`;
