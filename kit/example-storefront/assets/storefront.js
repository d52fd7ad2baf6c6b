/* global crypto, document, fetch, AbortSignal */
// The example shop's own script. On the product page: takes the size the widget hands over, and adds the line to
// the cart with the widget's cart property, so that the order names the shopper's size session. On both pages: tells
// the backend of a line added to the cart and of the lines checked out (`POST /fit/cart-events`, one line a call).
(function () {
  /** A random id for one call, the same on its retry: the backend stores a retried call once. */
  function callKey() {
    return Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, '0')).join('');
  }

  /** One cart line's event; retried once, with the same key, when the backend did not answer. Never throws. */
  async function cartEvent(type, line) {
    const key = callKey();
    const send = () =>
      fetch('/fit/cart-events', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'Idempotency-Key': key },
        body: JSON.stringify({ type, ...line }),
        keepalive: true,
        signal: AbortSignal.timeout(3000),
      });
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        if ((await send()).status < 500) return;
      } catch {
        // no answer: once more
      }
    }
  }

  // The cart: before the order is placed, each line's checkout_started (the order goes ahead whatever the answer).
  const checkout = document.getElementById('checkout');
  if (checkout) {
    let sent = false;
    checkout.addEventListener('submit', async (event) => {
      if (sent) return;
      event.preventDefault();
      sent = true;
      const lines = Array.from(document.querySelectorAll('.lines [data-product]'), (item) => ({
        product: item.dataset.product,
        variant: item.dataset.variant,
        cart_property: item.dataset.cartProperty ? { name: '_size_fit_session', value: item.dataset.cartProperty } : null,
      }));
      await Promise.all(lines.map((line) => cartEvent('checkout_started', line)));
      checkout.submit();
    });
  }

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
    const product = form.dataset.product;
    const variant = select.value;
    try {
      count.textContent = String(await addToCart(product, variant));
      status.textContent = form.dataset.added;
      const property = chosen && chosen.product === product ? chosen.cart_property : null;
      void cartEvent('add_to_cart', { product, variant, cart_property: property });
    } catch {
      status.textContent = form.dataset.failed;
    }
  });
})();
