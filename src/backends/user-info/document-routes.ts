import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { parseJsonText } from '../../common/request-body.ts';
import type { Store } from '../../store/database.ts';
import type { UserDocumentTableName } from '../../store/schema.ts';
import { findUserId, userIdFor } from '../../store/users.ts';
import { gatewayError } from '../../common/errors.ts';

/** One kind of per-user JSON document: preferences, sessions or saved searches (backends.md §7.1–7.3). */
export interface DocumentKind {
  /** Path segment: `/preferences/{username}`. */
  segment: string;
  table: UserDocumentTableName;
  column: string;
  /** Key that wraps the document in POST/PUT answers: `{preferences: {...}}`. */
  key: string;
  /** Only a JSON object is accepted (preferences); otherwise any JSON value. */
  objectOnly: boolean;
  /** Stored `{<key>: x}` documents (written by older clients) read back as `x`. */
  unwrapOnRead: boolean;
}

function parseDocument(text: string, kind: DocumentKind): unknown {
  const value = parseJsonText(text);
  if (kind.objectOnly && (typeof value !== 'object' || value === null || Array.isArray(value))) {
    throw gatewayError('ERR_BAD_OR_MISSING_FIELD', `${kind.key} must be a JSON object`);
  }
  return value;
}

async function readDocument(
  store: Store,
  kind: DocumentKind,
  username: string,
): Promise<string | undefined> {
  const row = await store.db
    .selectFrom(kind.table)
    .innerJoin('users', 'users.id', `${kind.table}.user_id`)
    .select(sql.ref<string>(`${kind.table}.${kind.column}`).as('document'))
    .where('users.username', '=', username)
    .executeTakeFirst();
  return row?.document;
}

async function writeDocument(
  store: Store,
  kind: DocumentKind,
  username: string,
  text: string,
): Promise<void> {
  // The gateway is trusted: a user it names is recorded rather than refused.
  const userId = await userIdFor(store.db, username);
  await store.db
    .insertInto(kind.table)
    .values({ id: randomUUID(), user_id: userId, [kind.column]: text } as never)
    .onConflict((conflict) =>
      conflict.column('user_id').doUpdateSet({ [kind.column]: text } as never),
    )
    .execute();
}

async function deleteDocument(store: Store, kind: DocumentKind, username: string): Promise<void> {
  const userId = await findUserId(store.db, username);
  if (userId) await store.db.deleteFrom(kind.table).where('user_id', '=', userId).execute();
}

/** GET, POST/PUT and DELETE `/<segment>/{username}`: the document is kept as the exact text sent. */
export function registerDocumentRoutes(
  app: FastifyInstance,
  store: Store,
  kind: DocumentKind,
): void {
  const url = `/${kind.segment}/:username`;

  app.get(url, async (request, reply) => {
    const { username } = request.params as { username: string };
    const text = await readDocument(store, kind, username);
    if (text === undefined) return reply.type('application/json').send('{}');
    if (kind.unwrapOnRead) {
      const value = JSON.parse(text) as Record<string, unknown>;
      const keys = Object.keys(value);
      const inner = value[kind.key];
      if (keys.length === 1 && keys[0] === kind.key && typeof inner === 'object' && inner !== null)
        return inner;
    }
    return reply.type('application/json').send(text);
  });

  const saveDocument = async (request: { params: unknown; body: unknown }) => {
    const { username } = request.params as { username: string };
    const text = typeof request.body === 'string' ? request.body : '';
    const value = parseDocument(text, kind);
    await writeDocument(store, kind, username, text);
    return { [kind.key]: value };
  };
  app.post(url, saveDocument);
  app.put(url, saveDocument);

  app.delete(url, async (request, reply) => {
    const { username } = request.params as { username: string };
    await deleteDocument(store, kind, username);
    return reply.code(200).send();
  });
}
