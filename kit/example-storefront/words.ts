/** The example storefront's own few words, in the widget's languages. */
export interface Words {
  readonly shop: string;
  readonly size: string;
  readonly chooseSize: string;
  readonly addToCart: string;
  readonly added: string;
  readonly addFailed: string;
  readonly selected: string;
  readonly more: string;
  readonly cart: string;
  readonly empty: string;
  readonly placeOrder: string;
  readonly thanks: string;
  readonly placed: string;
  readonly continue: string;
  readonly notFound: string;
}

export const WORDS: Readonly<Record<string, Words>> = {
  en: {
    shop: 'Example shop',
    size: 'Size',
    chooseSize: 'Choose a size',
    addToCart: 'Add to cart',
    added: 'Added to your cart.',
    addFailed: 'Choose a size first.',
    selected: 'Size {size} is selected.',
    more: 'More products',
    cart: 'Cart',
    empty: 'Your cart is empty.',
    placeOrder: 'Place order',
    thanks: 'Thank you',
    placed: 'Order {id} is placed.',
    continue: 'Continue shopping',
    notFound: 'No such product',
  },
  de: {
    shop: 'Beispielshop',
    size: 'Größe',
    chooseSize: 'Größe wählen',
    addToCart: 'In den Warenkorb',
    added: 'Im Warenkorb.',
    addFailed: 'Wählen Sie zuerst eine Größe.',
    selected: 'Größe {size} ist ausgewählt.',
    more: 'Weitere Produkte',
    cart: 'Warenkorb',
    empty: 'Ihr Warenkorb ist leer.',
    placeOrder: 'Bestellen',
    thanks: 'Vielen Dank',
    placed: 'Bestellung {id} ist aufgegeben.',
    continue: 'Weiter einkaufen',
    notFound: 'Dieses Produkt gibt es nicht',
  },
  fr: {
    shop: 'Boutique exemple',
    size: 'Taille',
    chooseSize: 'Choisir une taille',
    addToCart: 'Ajouter au panier',
    added: 'Ajouté à votre panier.',
    addFailed: 'Choisissez d’abord une taille.',
    selected: 'La taille {size} est sélectionnée.',
    more: 'Autres produits',
    cart: 'Panier',
    empty: 'Votre panier est vide.',
    placeOrder: 'Commander',
    thanks: 'Merci',
    placed: 'La commande {id} est passée.',
    continue: 'Continuer mes achats',
    notFound: 'Ce produit n’existe pas',
  },
  es: {
    shop: 'Tienda de ejemplo',
    size: 'Talla',
    chooseSize: 'Elige una talla',
    addToCart: 'Añadir a la cesta',
    added: 'Añadido a tu cesta.',
    addFailed: 'Elige primero una talla.',
    selected: 'Talla {size} seleccionada.',
    more: 'Más productos',
    cart: 'Cesta',
    empty: 'Tu cesta está vacía.',
    placeOrder: 'Hacer el pedido',
    thanks: 'Gracias',
    placed: 'El pedido {id} está hecho.',
    continue: 'Seguir comprando',
    notFound: 'Este producto no existe',
  },
};
