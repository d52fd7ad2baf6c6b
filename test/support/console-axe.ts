import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

/**
 * axe-core on a console page as it is now (docs/decisions/005-seller-console.md, "Accessibility"). The script is
 * evaluated through the DevTools protocol, which the page's Content-Security-Policy does not govern, so the console's
 * policy stays as strict in the test as in production.
 */
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

const RULE_SETS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'];

/** Each violation as `rule: target …`, for a readable failure; [] when axe finds nothing. */
export async function axeViolations(page: Page): Promise<string[]> {
  if (!(await page.evaluate('typeof window.axe !== "undefined"'))) await page.evaluate(AXE);
  const violations = await page.evaluate<Array<{ id: string; help: string; nodes: Array<{ target: unknown[] }> }>>(
    `axe.run(document, { runOnly: ${JSON.stringify(RULE_SETS)} }).then((r) => r.violations.map((v) => ({ id: v.id, help: v.help, nodes: v.nodes.map((n) => ({ target: n.target })) })))`,
  );
  return violations.map((v) => `${v.id} (${v.help}): ${v.nodes.map((n) => JSON.stringify(n.target)).join(' ')}`);
}

/** Presses Tab until the element matching `selector` has the focus; fails when it is not reachable that way. */
export async function tabTo(page: Page, selector: string, limit = 120): Promise<void> {
  for (let i = 0; i < limit; i++) {
    if (await page.evaluate(`(() => { const el = document.activeElement; return !!el && el.matches(${JSON.stringify(selector)}); })()`))
      return;
    await page.keyboard.press('Tab');
  }
  throw new Error(`${selector} was not reached with Tab in ${limit} presses on ${page.url()}`);
}
