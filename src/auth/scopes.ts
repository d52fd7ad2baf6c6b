/** What a key may do: `admin` satisfies every scope; the others each open one family of routes. */
export const SCOPES = ['admin', 'catalog', 'fit', 'events', 'analytics'] as const;
export type Scope = (typeof SCOPES)[number];
