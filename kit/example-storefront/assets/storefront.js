/* global document, fetch */
// The example product page's own script: takes the size the widget hands over, and adds the line to the cart with
// the widget's cart property, so that the order names the shopper's size session.
(function () {
  const form = document.getElementById('add-to-cart');
  if (!form) return;
  const select = document.getElementById('size');
  const status = document.getElementById('cart-status');
  const count = document.getElementById('cart-count');
  let chosen = null;

  // The widget's event: the size and variant chosen, and the property to put on the cart line.
  document.addEventListener('size-fit-select', (event) => {
    chosen = event.detail;
    if (chosen.variant_id) select.value = chosen.variant_id;
    status.textContent = form.dataset.selected.replace('{size}', chosen.size_label);
  });

  /** The add-to-cart helper: one line of the product in the chosen variant, with the widget's property if any. */
  async function addToCart(product, variant) {
    const properties = chosen && chosen.product === product ? [chosen.cart_property] : [];
    const response = await fetch('/cart/lines', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ product, variant, properties }),
    });
    if (!response.ok) throw new Error('cart refused the line');
    return (await response.json()).count;
  }

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    if (!select.value) {
      status.textContent = form.dataset.failed;
      select.focus();
      return;
    }
    try {
      count.textContent = String(await addToCart(form.dataset.product, select.value));
      status.textContent = form.dataset.added;
    } catch {
      status.textContent = form.dataset.failed;
    }
  });
})();
