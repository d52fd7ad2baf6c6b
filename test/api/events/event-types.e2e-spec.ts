/** The database holds only the event types the service knows (`events/event-types.ts`), whatever path writes them. */
import { describe, expect, it } from '@jest/globals';
import { DataSource } from 'typeorm';
import { EVENT_TYPES } from '../../../src/events/event-types.js';
import { useApp } from '../../support/app.js';
import { eventBody, eventsApi } from '../../support/event-fixtures.js';

describe('event types in the database', () => {
  const t = useApp();
  const { newShop, deliver } = eventsApi(t);

  it('refuses a row of a type the service does not know, and its CHECK lists exactly the known types', async () => {
    const shop = await newShop();
    const stored = await deliver(shop, eventBody('fit_viewed', shop));
    const db = t.app.get(DataSource);
    await expect(db.query(`UPDATE events SET type = 'fit_glanced' WHERE id = $1`, [stored.id])).rejects.toThrow(/events_type_check/);
    const [check] = await db.query<{ definition: string }[]>(
      `SELECT pg_get_constraintdef(oid) AS definition FROM pg_constraint WHERE conname = 'events_type_check'`,
    );
    const listed = [...check.definition.matchAll(/'([a-z_]+)'/g)].map((m) => m[1]);
    expect(listed.sort()).toEqual([...EVENT_TYPES].sort());
  });
});
