/** Where the e-commerce platform delivers a connected shop's notifications: the app's webhook address. */
export const NOTICES_PATH = '/platform/webhooks';
