/** The widget's entry point: defines `<size-fit-button>` once, whatever the number of script tags. */
import { SizeFitButton } from './size-fit-button.js';

if (!customElements.get('size-fit-button')) customElements.define('size-fit-button', SizeFitButton);
