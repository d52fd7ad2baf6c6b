/**
 * The platform's product listing read into what the import keeps (docs/platform-sync.md). Pure: no I/O.
 */
import type { ImportedVariant } from './platform.entities.js';

/** A product of the shop as the import keeps it. */
export interface ShopProduct {
  readonly platformId: string;
  readonly title: string;
  readonly productType: string;
  readonly vendor: string;
  readonly tags: string[];
  /** The size option's name as the shop wrote it, or null when no option is a size. */
  readonly sizeOption: string | null;
  readonly variants: ImportedVariant[];
  /** When the shop last changed it (its \`updated_at\`), or null when the shop does not say. */
  readonly updatedAt: Date | null;
}

/**
 * The names shops give their size option, in the languages they sell in, lower-cased and without accents: Size,
 * Taille, Größe, Talla, Taglia, Maat, Tamanho, Storlek, Størrelse, Koko, Rozmiar, Velikost, Méret, Mărime, Beden,
 * Μέγεθος, Размер, Розмір, サイズ, 尺码, 사이즈.
 */
const plain = (name: string): string =>
  name
    .normalize('NFD')
    .replace(/\p{Mn}/gu, '')
    .toLowerCase()
    .trim();

const SIZE_NAMES = new Set(
  [
    'size',
    'sizes',
    'taille',
    'tailles',
    'große',
    'grosse',
    'größe',
    'talla',
    'tallas',
    'taglia',
    'taglie',
    'maat',
    'maten',
    'tamanho',
    'storlek',
    'størrelse',
    'storrelse',
    'koko',
    'rozmiar',
    'velikost',
    'meret',
    'marime',
    'beden',
    'μεγεθος',
    'размер',
    'розмір',
    'サイズ',
    '尺码',
    '尺碼',
    '사이즈',
  ].map(plain),
);

/** Whether an option's name says it is the size: in any of the languages above, alone or with a word ("Shoe size"). */
export function isSizeOption(name: string): boolean {
  const words = plain(name);
  return SIZE_NAMES.has(words) || words.split(/[\s:/_-]+/).some((word) => SIZE_NAMES.has(word));
}

/** The products of one page of `GET …/products.json`; a product the listing garbles is left out, never guessed at. */
export function shopProducts(body: unknown): ShopProduct[] {
  const products = (body as { products?: unknown } | null)?.products;
  if (!Array.isArray(products)) throw new Error('the product listing has no products list');
  return products.flatMap((raw: unknown) => {
    const product = shopProduct(raw);
    return product ? [product] : [];
  });
}

/** A product as the listing and the product notifications give it; null when it has no id. */
export function shopProduct(raw: unknown): ShopProduct | null {
  if (typeof raw !== 'object' || raw === null) return null;
  const product = raw as Record<string, unknown>;
  const id = platformId(product.id);
  if (id === null) return null;
  const options = Array.isArray(product.options) ? (product.options as Array<{ name?: unknown; position?: unknown }>) : [];
  const size = options.find((option) => typeof option?.name === 'string' && isSizeOption(option.name));
  const position = size && typeof size.position === 'number' && [1, 2, 3].includes(size.position) ? size.position : null;
  const variants = (Array.isArray(product.variants) ? (product.variants as Array<Record<string, unknown>>) : []).flatMap((variant) => {
    const variantId = platformId(variant?.id);
    if (variantId === null) return [];
    const value = position === null ? null : variant[`option${position}`];
    const size = text(value, 50);
    return [{ id: variantId, size: size === '' ? null : size }];
  });
  return {
    platformId: id,
    title: text(product.title, 500) || `Product ${id}`,
    productType: text(product.product_type, 255),
    vendor: text(product.vendor, 255),
    tags: text(product.tags, 5000)
      .split(',')
      .map((tag) => tag.trim())
      .filter(Boolean),
    sizeOption: position === null ? null : (size?.name as string),
    variants,
    updatedAt:
      typeof product.updated_at === 'string' && !Number.isNaN(Date.parse(product.updated_at)) ? new Date(product.updated_at) : null,
  };
}

/** The `page_info` cursor of the next page, from the listing's `Link` header; null on the last page. */
export function nextPageOf(link: string | null): string | null {
  if (!link) return null;
  for (const part of link.split(',')) {
    const match = /<([^>]+)>\s*;\s*rel="?next"?/.exec(part);
    if (!match) continue;
    try {
      return new URL(match[1]).searchParams.get('page_info');
    } catch {
      return null;
    }
  }
  return null;
}

/** A platform's id: a non-empty string of at most 150 characters, or a non-negative integer sent as a number. */
export function platformId(value: unknown): string | null {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return String(value);
  if (typeof value === 'string' && value.length > 0 && value.length <= 150) return value;
  return null;
}

/** Characters no text keeps: C0 controls (NUL would not even store) and DEL. */
// eslint-disable-next-line no-control-regex
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f]/g;

/** A text field of the listing: control characters as spaces, trimmed, at most `max` characters. */
function text(value: unknown, max: number): string {
  return typeof value === 'string' ? value.replace(CONTROL_CHARACTERS, ' ').trim().slice(0, max) : '';
}
