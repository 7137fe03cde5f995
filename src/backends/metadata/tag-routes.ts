import { randomUUID } from 'node:crypto';
import { sql, type Selectable } from 'kysely';
import { Type } from 'typebox';
import type { Database } from '../../store/schema.ts';
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
import { choiceParam, requiredParam, singleParam } from '../../common/query-params.ts';
import { gatewayError } from '../../common/errors.ts';

/**
 * Tags (backends.md §3.4): each user's own labels, attached to files and folders. An attachment
 * is a row; detaching records who and when rather than deleting it. Users see and attach only
 * their own tags.
 */

type TagRow = Selectable<Database['tags']>;

const MAX_VALUE_LENGTH = 255;
const DEFAULT_SUGGESTIONS = 10;
const MAX_SUGGESTIONS = 1000;

/** `Tag` = `{id, value, description}` (description '' when none was given). */
const present = (row: Pick<TagRow, 'id' | 'value' | 'description'>) => ({
  id: row.id,
  value: row.value,
  description: row.description ?? '',
});

function tagValue(raw: unknown): string {
  if (typeof raw !== 'string' || raw.trim() === '' || raw.trim().length > MAX_VALUE_LENGTH) {
    throw gatewayError(
      'ERR_BAD_OR_MISSING_FIELD',
      `body field "value" must be a non-blank string of at most ${MAX_VALUE_LENGTH} characters`,
      { field: 'value' },
    );
  }
  return raw.trim();
}

function tagDescription(raw: unknown): string | null | undefined {
  if (raw === undefined) return undefined;
  if (raw === null) return null;
  if (typeof raw !== 'string')
    throw gatewayError('ERR_BAD_OR_MISSING_FIELD', 'body field "description" must be a string', {
      field: 'description',
    });
  return raw;
}

const duplicate = (value: string) =>
  gatewayError('ERR_NOT_UNIQUE', `you already have a tag named ${JSON.stringify(value)}`, {
    value,
  });
const notFound = (id: string, user: string) =>
  gatewayError('ERR_NOT_FOUND', `tag ${id} is not one of ${user}'s tags`, { id, user });

const escapeLike = (text: string) => text.replace(/[\\%_]/g, (character) => `\\${character}`);

const idParams = Type.Object({ targetId: Uuid });
const tagParams = Type.Object({ tagId: Uuid });

export const tagRoutes: MetadataRoutes = async (app, { db, now }) => {
  const ownTag = async (user: string, id: string) => {
    const row = await db
      .selectFrom('tags')
      .selectAll()
      .where('id', '=', id.toLowerCase())
      .where('owner_id', '=', user)
      .executeTakeFirst();
    if (!row) throw notFound(id, user);
    return row;
  };
  const valueTaken = async (user: string, value: string, except?: string) =>
    (await db
      .selectFrom('tags')
      .select('id')
      .where('owner_id', '=', user)
      .where('value', '=', value)
      .$if(except !== undefined, (query) => query.where('id', '!=', except!))
      .executeTakeFirst()) !== undefined;

  // The user's tags that are attached to something now, each once.
  app.get('/filesystem/data/tags', { schema: { querystring: userQuery } }, async (request) => {
    const user = userOf(request);
    const rows = await db
      .selectFrom('tags')
      .select(['id', 'value', 'description'])
      .where('owner_id', '=', user)
      .where(
        'id',
        'in',
        db
          .selectFrom('attached_tags')
          .select('tag_id')
          .where('attacher_id', '=', user)
          .where('detached_on', 'is', null),
      )
      .orderBy('value')
      .execute();
    return { tags: rows.map(present) };
  });

  // Detaches every tag the user attached.
  app.delete(
    '/filesystem/data/tags',
    { schema: { querystring: userQuery } },
    async (request, reply) => {
      const user = userOf(request);
      await db
        .updateTable('attached_tags')
        .set({ detacher_id: user, detached_on: now() })
        .where('attacher_id', '=', user)
        .where('detached_on', 'is', null)
        .execute();
      return reply.code(200).send();
    },
  );

  app.get<{ Params: { targetId: string } }>(
    '/filesystem/data/:targetId/tags',
    { schema: { params: idParams, querystring: userQuery } },
    async (request) => {
      const user = userOf(request);
      const rows = await db
        .selectFrom('tags')
        .select(['id', 'value', 'description'])
        .where('owner_id', '=', user)
        .where(
          'id',
          'in',
          db
            .selectFrom('attached_tags')
            .select('tag_id')
            .where('target_id', '=', request.params.targetId.toLowerCase())
            .where('detached_on', 'is', null),
        )
        .orderBy('value')
        .execute();
      return { tags: rows.map(present) };
    },
  );

  app.patch<{ Params: { targetId: string } }>(
    '/filesystem/data/:targetId/tags',
    { schema: { params: idParams, querystring: userQuery } },
    async (request, reply) => {
      const user = userOf(request);
      const action = choiceParam(request.query, 'type', ['attach', 'detach'] as const);
      const targetType = choiceParam(request.query, 'data-type', ['file', 'folder'] as const);
      const targetId = request.params.targetId.toLowerCase();
      const given = stringList(bodyObject(request.body), 'tags');
      const bad = given.find((id) => !isUuid(id));
      if (bad !== undefined)
        throw gatewayError(
          'ERR_BAD_OR_MISSING_FIELD',
          `tag id ${JSON.stringify(bad)} is not a UUID`,
          { field: 'tags' },
        );
      const ids = [...new Set(given.map((id) => id.toLowerCase()))];
      const owned = new Set<string>();
      for (const part of chunks(ids)) {
        for (const row of await db
          .selectFrom('tags')
          .select('id')
          .where('owner_id', '=', user)
          .where('id', 'in', part)
          .execute())
          owned.add(row.id);
      }
      const unknown = ids.filter((id) => !owned.has(id));
      if (unknown.length > 0)
        throw gatewayError('ERR_NOT_FOUND', `not ${user}'s tags: ${unknown.join(', ')}`, {
          tags: unknown,
          user,
        });

      const time = now();
      await db.transaction().execute(async (trx) => {
        for (const part of chunks(ids)) {
          if (action === 'detach') {
            await trx
              .updateTable('attached_tags')
              .set({ detacher_id: user, detached_on: time })
              .where('target_id', '=', targetId)
              .where('tag_id', 'in', part)
              .where('detached_on', 'is', null)
              .execute();
            continue;
          }
          const attached = new Set(
            (
              await trx
                .selectFrom('attached_tags')
                .select('tag_id')
                .where('target_id', '=', targetId)
                .where('tag_id', 'in', part)
                .where('detached_on', 'is', null)
                .execute()
            ).map((row) => row.tag_id),
          );
          const fresh = part.filter((id) => !attached.has(id));
          if (fresh.length > 0) {
            await trx
              .insertInto('attached_tags')
              .values(
                fresh.map((tagId) => ({
                  target_id: targetId,
                  target_type: targetType,
                  tag_id: tagId,
                  attacher_id: user,
                  attached_on: time,
                  detacher_id: null,
                  detached_on: null,
                })),
              )
              .execute();
          }
        }
      });
      return reply.code(200).send();
    },
  );

  // The user's tags whose value contains `contains` (any letter case), alphabetically.
  app.get('/tags/suggestions', { schema: { querystring: userQuery } }, async (request) => {
    const user = userOf(request);
    const contains = requiredParam(request.query, 'contains');
    const rawLimit = singleParam(request.query, 'limit');
    const limit = rawLimit === undefined ? DEFAULT_SUGGESTIONS : Number(rawLimit);
    if (!Number.isInteger(limit) || limit < 0 || limit > MAX_SUGGESTIONS) {
      throw gatewayError(
        'ERR_BAD_QUERY_PARAMETER',
        `query parameter "limit" must be an integer from 0 to ${MAX_SUGGESTIONS}`,
        { field: 'limit' },
      );
    }
    const pattern = `%${escapeLike(contains.toLowerCase())}%`;
    const rows = await db
      .selectFrom('tags')
      .select(['id', 'value', 'description'])
      .where('owner_id', '=', user)
      .where(sql<boolean>`lower(value) like ${pattern} escape '\\'`)
      .orderBy('value')
      .orderBy('id')
      .limit(limit)
      .execute();
    return { tags: rows.map(present) };
  });

  app.get('/tags/user', { schema: { querystring: userQuery } }, async (request) => {
    const user = userOf(request);
    const rows = await db
      .selectFrom('tags')
      .select(['id', 'value', 'description'])
      .where('owner_id', '=', user)
      .orderBy('value')
      .execute();
    return { tags: rows.map(present) };
  });

  app.post('/tags/user', { schema: { querystring: userQuery } }, async (request) => {
    const user = userOf(request);
    const body = bodyObject(request.body);
    const value = tagValue(body.value);
    const description = tagDescription(body.description) ?? null;
    if (await valueTaken(user, value)) throw duplicate(value);
    const id = randomUUID();
    const time = now();
    try {
      await db
        .insertInto('tags')
        .values({
          id,
          value,
          description,
          public: false,
          owner_id: user,
          created_on: time,
          modified_on: time,
        })
        .execute();
    } catch (error) {
      if (await valueTaken(user, value)) throw duplicate(value); // lost a race with the same value
      throw error;
    }
    return { id };
  });

  // Removes all the user's tags, and with them their attachments (on delete cascade).
  app.delete('/tags/user', { schema: { querystring: userQuery } }, async (request, reply) => {
    const user = userOf(request);
    await db.deleteFrom('tags').where('owner_id', '=', user).execute();
    return reply.code(200).send();
  });

  app.patch<{ Params: { tagId: string } }>(
    '/tags/user/:tagId',
    { schema: { params: tagParams, querystring: userQuery } },
    async (request) => {
      const user = userOf(request);
      const row = await ownTag(user, request.params.tagId);
      const body = bodyObject(request.body);
      const value = body.value === undefined ? row.value : tagValue(body.value);
      const description = tagDescription(body.description);
      if (value !== row.value && (await valueTaken(user, value, row.id))) throw duplicate(value);
      const changes = {
        value,
        ...(description !== undefined ? { description } : {}),
        modified_on: now(),
      };
      await db.updateTable('tags').set(changes).where('id', '=', row.id).execute();
      return present({ ...row, ...changes });
    },
  );

  app.delete<{ Params: { tagId: string } }>(
    '/tags/user/:tagId',
    { schema: { params: tagParams, querystring: userQuery } },
    async (request, reply) => {
      const user = userOf(request);
      const row = await ownTag(user, request.params.tagId);
      await db.deleteFrom('tags').where('id', '=', row.id).execute();
      return reply.code(200).send();
    },
  );
};
