import { Type } from 'typebox';
import type { MetadataTargetType } from '../../store/schema.ts';
import {
  bodyObject,
  chunks,
  isUuid,
  stringList,
  userOf,
  userQuery,
  Uuid,
  type MetadataRoutes,
} from './requests.ts';
import { choiceParam } from '../../common/query-params.ts';
import { gatewayError } from '../../common/errors.ts';

/**
 * Favorite files and folders (backends.md §3.2). Existence and readability are the gateway's
 * checks; here a favorite is just (user, UUID, type). The listing answers UUIDs in the order
 * they were marked (oldest first), so callers that page it get a stable order.
 */

const dataTypes = ['file', 'folder'] as const;
const entityTypes = ['any', 'file', 'folder'] as const;

function typesOf(entityType: (typeof entityTypes)[number]): MetadataTargetType[] {
  return entityType === 'any' ? ['file', 'folder'] : [entityType];
}

const idParams = Type.Object({ targetId: Uuid });
type IdRequest = { Params: { targetId: string } };

export const favoriteRoutes: MetadataRoutes = async (app, { db, now }) => {
  app.get('/favorites/filesystem', { schema: { querystring: userQuery } }, async (request) => {
    const user = userOf(request);
    const types = typesOf(choiceParam(request.query, 'entity-type', entityTypes));
    const rows = await db
      .selectFrom('favorites')
      .select('target_id')
      .where('owner_id', '=', user)
      .where('target_type', 'in', types)
      .orderBy('created_on')
      .orderBy('target_id')
      .execute();
    return { filesystem: rows.map((row) => row.target_id) };
  });

  app.delete(
    '/favorites/filesystem',
    { schema: { querystring: userQuery } },
    async (request, reply) => {
      const user = userOf(request);
      const types = typesOf(choiceParam(request.query, 'entity-type', entityTypes));
      await db
        .deleteFrom('favorites')
        .where('owner_id', '=', user)
        .where('target_type', 'in', types)
        .execute();
      return reply.code(200).send();
    },
  );

  // Idempotent: marking again keeps the original time (and takes the type given now).
  app.put<IdRequest>(
    '/favorites/filesystem/:targetId',
    { schema: { params: idParams, querystring: userQuery } },
    async (request, reply) => {
      const user = userOf(request);
      const targetType = choiceParam(request.query, 'data-type', dataTypes);
      await db
        .insertInto('favorites')
        .values({
          owner_id: user,
          target_id: request.params.targetId.toLowerCase(),
          target_type: targetType,
          created_on: now(),
        })
        .onConflict((conflict) =>
          conflict.columns(['owner_id', 'target_id']).doUpdateSet({ target_type: targetType }),
        )
        .execute();
      return reply.code(200).send();
    },
  );

  app.delete<IdRequest>(
    '/favorites/filesystem/:targetId',
    { schema: { params: idParams, querystring: userQuery } },
    async (request, reply) => {
      const user = userOf(request);
      const removed = await db
        .deleteFrom('favorites')
        .where('owner_id', '=', user)
        .where('target_id', '=', request.params.targetId.toLowerCase())
        .executeTakeFirst();
      if (Number(removed.numDeletedRows) === 0) {
        throw gatewayError(
          'ERR_NOT_FOUND',
          "The target-id wasn't marked as a favorite by the user",
          { user, 'target-id': request.params.targetId },
        );
      }
      return reply.code(200).send();
    },
  );

  // The given ids that are the user's file or folder favorites, in the order and spelling given.
  app.post('/favorites/filter', { schema: { querystring: userQuery } }, async (request) => {
    const user = userOf(request);
    const given = stringList(bodyObject(request.body), 'filesystem');
    const candidates = [...new Set(given.filter(isUuid).map((id) => id.toLowerCase()))];
    const favorite = new Set<string>();
    for (const part of chunks(candidates)) {
      const rows = await db
        .selectFrom('favorites')
        .select('target_id')
        .where('owner_id', '=', user)
        .where('target_type', 'in', ['file', 'folder'])
        .where('target_id', 'in', part)
        .execute();
      for (const row of rows) favorite.add(row.target_id);
    }
    return {
      filesystem: [...new Set(given)].filter((id) => isUuid(id) && favorite.has(id.toLowerCase())),
    };
  });
};
