import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import { parseJsonText } from '../../common/request-body.ts';
import type { Store } from '../../store/database.ts';
import type { Database } from '../../store/schema.ts';
import { findUserId, userIdFor } from '../../store/users.ts';
import { qualifiedUsername } from '../../common/users.ts';
import { GatewayError, gatewayError } from '../../common/errors.ts';

interface BagRow {
  id: string;
  user_id: string;
  contents: string;
}

/** A bag as the API shows it: `contents` is the stored JSON object, not its text. */
function present(row: BagRow) {
  return { id: row.id, contents: JSON.parse(row.contents) as unknown, user_id: row.user_id };
}

/** The request body is the bag's contents: a JSON object, kept as the exact text sent. */
function contentsOf(body: unknown): string {
  const text = typeof body === 'string' ? body : '';
  const value = parseJsonText(text);
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw gatewayError('ERR_BAD_OR_MISSING_FIELD', 'bag contents must be a JSON object', {
      field: 'contents',
    });
  }
  return text;
}

function notFound(username: string, bagId: string): GatewayError {
  return gatewayError('ERR_NOT_FOUND', `bag ${bagId} not found for user ${username}`, {
    user: username,
    id: bagId,
  });
}

/** Bags of the named user; an unknown user simply has none. */
function bagsOf(db: Kysely<Database>, username: string) {
  return db
    .selectFrom('bags')
    .innerJoin('users', 'users.id', 'bags.user_id')
    .select(['bags.id', 'bags.user_id', 'bags.contents'])
    .where('users.username', '=', username);
}

/** Row ids of the named user, as a subquery (writes to existing bags need no user row of their own). */
function userIdOf(db: Kysely<Database>, username: string) {
  return db.selectFrom('users').select('id').where('username', '=', username);
}

function defaultBag(db: Kysely<Database>, userId: string): Promise<BagRow | undefined> {
  return db
    .selectFrom('default_bags')
    .innerJoin('bags', 'bags.id', 'default_bags.bag_id')
    .select(['bags.id', 'bags.user_id', 'bags.contents'])
    .where('default_bags.user_id', '=', userId)
    .executeTakeFirst();
}

/**
 * The user's default bag, made empty when there is none. Safe under racing callers: whoever
 * claims `default_bags` first wins (the others' inserts do nothing), and a loser removes the
 * bag it made inside its transaction, so nobody ever sees it.
 */
async function ensureDefaultBag(store: Store, userId: string): Promise<BagRow> {
  const existing = await defaultBag(store.db, userId);
  if (existing) return existing;
  // A few attempts only matter if a concurrent DELETE removes the winner's bag in between.
  for (let attempt = 0; attempt < 3; attempt++) {
    const bag = await store.db.transaction().execute(async (trx) => {
      const fresh: BagRow = { id: randomUUID(), user_id: userId, contents: '{}' };
      await trx.insertInto('bags').values(fresh).execute();
      const claimed = await trx
        .insertInto('default_bags')
        .values({ user_id: userId, bag_id: fresh.id })
        .onConflict((conflict) => conflict.column('user_id').doNothing())
        .executeTakeFirst();
      if (Number(claimed.numInsertedOrUpdatedRows ?? 0) > 0) return fresh;
      await trx.deleteFrom('bags').where('id', '=', fresh.id).execute();
      return defaultBag(trx, userId);
    });
    if (bag) return bag;
  }
  throw gatewayError(
    'ERR_CONFLICT',
    'the default bag kept changing while it was being created; try again',
  );
}

/**
 * Bags (backends.md §7.4): `/bags/{username}` and `/bags/{username}/{bag-id|default}`. Paths take
 * the qualified name; a short one is qualified here, as the original service does. Writes record
 * the user (the gateway is trusted); reads of an unknown user find nothing.
 */
export function registerBagRoutes(app: FastifyInstance, store: Store, uidDomain: string): void {
  const ownerOf = (params: unknown): string => {
    const { username } = params as { username: string };
    return qualifiedUsername(username, uidDomain);
  };
  const bagIdOf = (params: unknown): string => (params as { bagId: string }).bagId;

  // HEAD answers whether any bag exists, so GET must not expose its own HEAD route.
  app.head('/bags/:username', async (request, reply) => {
    const any = await bagsOf(store.db, ownerOf(request.params))
      .select('bags.id')
      .limit(1)
      .executeTakeFirst();
    return reply.code(any ? 200 : 404).send();
  });

  app.get('/bags/:username', { exposeHeadRoute: false }, async (request) => {
    const rows = await bagsOf(store.db, ownerOf(request.params)).execute();
    return { bags: rows.map(present) };
  });

  app.put('/bags/:username', async (request) => {
    const contents = contentsOf(request.body);
    const userId = await userIdFor(store.db, ownerOf(request.params));
    const id = randomUUID();
    await store.db.insertInto('bags').values({ id, user_id: userId, contents }).execute();
    return { id };
  });

  app.delete('/bags/:username', async (request, reply) => {
    // default_bags rows go with their bags (on delete cascade).
    await store.db
      .deleteFrom('bags')
      .where('user_id', 'in', userIdOf(store.db, ownerOf(request.params)))
      .execute();
    return reply.code(200).send();
  });

  // Static `default` is matched before the `:bagId` routes below.
  app.get('/bags/:username/default', async (request) => {
    const userId = await userIdFor(store.db, ownerOf(request.params));
    return present(await ensureDefaultBag(store, userId));
  });

  app.post('/bags/:username/default', async (request) => {
    const contents = contentsOf(request.body);
    const userId = await userIdFor(store.db, ownerOf(request.params));
    const bag = await ensureDefaultBag(store, userId);
    await store.db.updateTable('bags').set({ contents }).where('id', '=', bag.id).execute();
    return present({ ...bag, contents });
  });

  // Removes the default bag and answers its empty replacement (the next GET would make one anyway).
  app.delete('/bags/:username/default', async (request) => {
    const owner = ownerOf(request.params);
    const known = await findUserId(store.db, owner);
    if (known) {
      const current = store.db
        .selectFrom('default_bags')
        .select('bag_id')
        .where('user_id', '=', known);
      await store.db.deleteFrom('bags').where('id', 'in', current).execute();
    }
    return present(await ensureDefaultBag(store, known ?? (await userIdFor(store.db, owner))));
  });

  app.get('/bags/:username/:bagId', async (request) => {
    const owner = ownerOf(request.params);
    const bagId = bagIdOf(request.params);
    const row = await bagsOf(store.db, owner).where('bags.id', '=', bagId).executeTakeFirst();
    if (!row) throw notFound(owner, bagId);
    return present(row);
  });

  app.post('/bags/:username/:bagId', async (request) => {
    const owner = ownerOf(request.params);
    const bagId = bagIdOf(request.params);
    const contents = contentsOf(request.body);
    const row = await store.db
      .updateTable('bags')
      .set({ contents })
      .where('id', '=', bagId)
      .where('user_id', 'in', userIdOf(store.db, owner))
      .returning(['id', 'user_id', 'contents'])
      .executeTakeFirst();
    if (!row) throw notFound(owner, bagId);
    return present(row);
  });

  // Deleting a bag that is not there is not an error (as in the original service).
  app.delete('/bags/:username/:bagId', async (request, reply) => {
    await store.db
      .deleteFrom('bags')
      .where('id', '=', bagIdOf(request.params))
      .where('user_id', 'in', userIdOf(store.db, ownerOf(request.params)))
      .execute();
    return reply.code(200).send();
  });
}
