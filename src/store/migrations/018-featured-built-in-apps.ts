import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';

/**
 * Featured Apps became the public apps of the featured-apps community (a community tag AVU on the
 * app) instead of the reviewed ones. The built-in apps, featured until now, keep their place: they
 * get the tag here on a store that already holds them (a fresh store gets it when they are first
 * installed). Written out rather than imported: a migration never changes once shipped.
 */
const attribute = 'cyverse-community';
const featuredAppsCommunity = 'Featured Apps';
const platformIntegrator = 'platform';

/** The columns this migration reads and writes, as they were when it was written. */
interface Tables {
  apps: { id: string; integrator: string };
  avus: {
    id: string;
    attribute: string;
    value: string;
    unit: string;
    target_id: string;
    target_type: string;
    created_by: string;
    modified_by: string;
    created_on: number;
    modified_on: number;
  };
}

export async function up(untyped: Kysely<unknown>): Promise<void> {
  const db = untyped as unknown as Kysely<Tables>;
  const builtIns = await db
    .selectFrom('apps')
    .select('id')
    .where('integrator', '=', platformIntegrator)
    .where('id', 'not in', (eb) =>
      eb
        .selectFrom('avus')
        .select('target_id')
        .where('target_type', '=', 'app')
        .where('attribute', '=', attribute)
        .where('value', '=', featuredAppsCommunity),
    )
    .execute();
  const now = Date.now();
  for (const { id } of builtIns)
    await db
      .insertInto('avus')
      .values({
        id: randomUUID(),
        attribute,
        value: featuredAppsCommunity,
        unit: '',
        target_id: id,
        target_type: 'app',
        created_by: platformIntegrator,
        modified_by: platformIntegrator,
        created_on: now,
        modified_on: now,
      })
      .execute();
}

export async function down(untyped: Kysely<unknown>): Promise<void> {
  const db = untyped as unknown as Kysely<Tables>;
  await db
    .deleteFrom('avus')
    .where('target_type', '=', 'app')
    .where('attribute', '=', attribute)
    .where('value', '=', featuredAppsCommunity)
    .where('created_by', '=', platformIntegrator)
    .execute();
}
