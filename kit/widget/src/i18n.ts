import { de } from './messages/de.js';
import { en, type Messages } from './messages/en.js';
import { es } from './messages/es.js';
import { fr } from './messages/fr.js';

const LANGUAGES: Readonly<Record<string, Messages>> = { en, de, fr, es };
/** Where people measure in inches and pounds. */
const IMPERIAL_REGIONS = ['US', 'LR', 'MM'];

export type Units = 'metric' | 'imperial';

export interface Locale {
  /** The language used: one of the message files. */
  readonly lang: string;
  /** The page's full tag, for number and list formats. */
  readonly tag: string;
  readonly messages: Messages;
  readonly units: Units;
}

/** The locale from the nearest `lang` attribute (the element's, else the page's); English when none is known. */
export function localeOf(element: Element): Locale {
  const tag = element.closest('[lang]')?.getAttribute('lang') || document.documentElement.lang || 'en';
  const [language = 'en', region = ''] = tag.split(/[-_]/);
  const lang = Object.hasOwn(LANGUAGES, language.toLowerCase()) ? language.toLowerCase() : 'en';
  const messages = LANGUAGES[lang] ?? en;
  return { lang, tag, messages, units: IMPERIAL_REGIONS.includes(region.toUpperCase()) ? 'imperial' : 'metric' };
}

/** `{name}` replaced by the value given. */
export function format(text: string, values: Record<string, string | number> = {}): string {
  return text.replace(/\{(\w+)\}/g, (whole, name: string) => (Object.hasOwn(values, name) ? String(values[name]) : whole));
}
