import { describe, expect, it } from '@jest/globals';
import { isSizeOption, nextPageOf, shopProducts } from './shop-products.js';

describe('the shop’s product listing', () => {
  it('finds the size option by its name in the languages shops sell in, whatever the case or accents', () => {
    for (const name of [
      'Size',
      'SIZE',
      'Taille',
      'Größe',
      'Grosse',
      'Talla',
      'Taglia',
      'Maat',
      'Tamanho',
      'Størrelse',
      'Méret',
      'Shoe size',
      'サイズ',
      ' size ',
    ])
      expect([name, isSizeOption(name)]).toEqual([name, true]);
    for (const name of ['Color', 'Colour', 'Material', 'Title', 'Sizing guide', 'Fit'])
      expect([name, isSizeOption(name)]).toEqual([name, false]);
  });

  it('reads each variant’s size from the size option’s position and when the shop changed it, and leaves out what it cannot read', () => {
    const products = shopProducts({
      products: [
        {
          id: 7,
          updated_at: '2026-05-01T09:30:00+02:00',
          title: ' Linen dress ',
          product_type: 'Dresses',
          vendor: 'Fjord',
          tags: 'summer, linen,, ',
          options: [
            { name: 'Farbe', position: 1, values: ['Blau'] },
            { name: 'Größe', position: 2, values: ['36', '38'] },
          ],
          variants: [
            { id: 71, option1: 'Blau', option2: '36' },
            { id: 72, option1: 'Blau', option2: '38' },
            { id: null, option1: 'Blau', option2: '40' },
          ],
        },
        {
          id: 8,
          updated_at: 'yesterday',
          title: 'Gift\u0000card',
          options: [{ name: 'Title', position: 1 }],
          variants: [{ id: 81, option1: 'Default Title' }],
        },
        { title: 'no id' },
        'not a product',
      ],
    });
    expect(products).toEqual([
      {
        platformId: '7',
        title: 'Linen dress',
        productType: 'Dresses',
        vendor: 'Fjord',
        tags: ['summer', 'linen'],
        sizeOption: 'Größe',
        variants: [
          { id: '71', size: '36' },
          { id: '72', size: '38' },
        ],
        updatedAt: new Date('2026-05-01T07:30:00Z'),
      },
      {
        platformId: '8',
        title: 'Gift card',
        productType: '',
        vendor: '',
        tags: [],
        sizeOption: null,
        variants: [{ id: '81', size: null }],
        updatedAt: null,
      },
    ]);
    expect(() => shopProducts({ items: [] })).toThrow('the product listing has no products list');
  });

  it('reads the next page’s cursor from the Link header, and none on the last page', () => {
    const base = 'https://shop.example/admin/api/2025-01/products.json';
    expect(nextPageOf(`<${base}?limit=250&page_info=abc>; rel="previous", <${base}?limit=250&page_info=def>; rel="next"`)).toBe('def');
    expect(nextPageOf(`<${base}?limit=250&page_info=abc>; rel="previous"`)).toBeNull();
    expect(nextPageOf(null)).toBeNull();
  });
});
