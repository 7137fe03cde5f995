import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import { toGatewayError } from '../../common/error-replies.ts';
import { bodyObject, MAX_BULK_PATHS, pathList } from './bulk.ts';
import { atLeast, everyone, systemOwner, type DataObject } from './object-index.ts';
import { type Permission } from '../../common/data-stat.ts';
import { inTransaction } from './moves.ts';
import { anonymousUser, type Caller, type DataStore } from './store.ts';
import { createTickets } from './tickets.ts';
import { GatewayError, gatewayError } from '../../common/errors.ts';

/**
 * Sharing (backends.md §2.1): only an object's owner grants or revokes `read`, `write` or `own`
 * on it; a grant on a folder covers everything below it (object-index.ts). The bulk routes report a
 * failure per path instead of failing the request; the per-item routes throw.
 */

const permissions = new Set<Permission>(['read', 'write', 'own']);

interface PathResult {
  path: string;
  success: boolean;
  reason?: string;
  error?: Record<string, unknown>;
}

function failure(path: string, error: unknown): PathResult {
  const gatewayError = error instanceof GatewayError ? error : toGatewayError(error as Error);
  if (gatewayError.statusCode >= 500) throw error; // a broken store is not a per-path refusal
  return {
    path,
    success: false,
    reason: gatewayError.reason,
    error: {
      error_code: gatewayError.errorCode,
      reason: gatewayError.reason,
      ...gatewayError.extra,
    },
  };
}

/** A user one may share with: a valid data-store user, not the anonymous one, not oneself. */
async function sharee(data: DataStore, caller: Caller, name: unknown): Promise<string> {
  if (typeof name !== 'string' || name === '' || name === anonymousUser) {
    throw gatewayError(
      'ERR_NOT_A_USER',
      `${JSON.stringify(name)} is not a user one can share with`,
      { user: name },
    );
  }
  if (name === caller.name)
    throw gatewayError('ERR_ILLEGAL_ARGUMENT', 'one cannot share with or unshare from oneself', {
      user: name,
    });
  await data.caller(name); // validates the name (ERR_NOT_A_USER) and gives the sharee a home to see it from
  return name;
}

/**
 * An entry's sharee, checked once. An invalid one is refused for each of the entry's paths (the
 * bulk routes report failures per path), so the refusal is thrown again by every call.
 */
async function shareeOrRefusal(
  data: DataStore,
  caller: Caller,
  name: unknown,
): Promise<() => string> {
  try {
    const shareWith = await sharee(data, caller, name);
    return () => shareWith;
  } catch (error) {
    return () => {
      throw error;
    };
  }
}

/** The object at `input`, which the caller must own; its recorded owner's access is never changed by others. */
async function ownedObject(
  data: DataStore,
  caller: Caller,
  input: unknown,
  field: string,
  shareWith: string,
): Promise<DataObject> {
  const object = await data.existing(data.path(input, field));
  await data.require(caller, object, 'own');
  if (shareWith === object.owner)
    throw gatewayError(
      'ERR_ILLEGAL_ARGUMENT',
      `${shareWith} owns ${object.path}; their access cannot be changed`,
      { path: object.path, user: shareWith },
    );
  return object;
}

function parsePermission(value: unknown): Permission {
  if (typeof value !== 'string' || !permissions.has(value as Permission)) {
    throw gatewayError('ERR_BAD_OR_MISSING_FIELD', 'permission must be read, write or own', {
      field: 'permission',
    });
  }
  return value as Permission;
}

/** Entries `[{user, paths: [...]}]` of a sharer/unsharer body, with the bulk limit on the total. */
function entries(
  body: unknown,
  field: 'sharing' | 'unshare',
): { user: unknown; paths: unknown[] }[] {
  const list = bodyObject(body)[field];
  const bad = () =>
    gatewayError(
      'ERR_BAD_OR_MISSING_FIELD',
      `body field "${field}" must be a list of {user, paths: [...]}`,
      { field },
    );
  if (!Array.isArray(list)) throw bad();
  let count = 0;
  const parsed = list.map((entry) => {
    if (
      typeof entry !== 'object' ||
      entry === null ||
      !Array.isArray((entry as { paths?: unknown }).paths)
    )
      throw bad();
    count += (entry as { paths: unknown[] }).paths.length;
    return entry as { user: unknown; paths: unknown[] };
  });
  if (count > MAX_BULK_PATHS)
    throw gatewayError('ERR_TOO_MANY_RESULTS', `at most ${MAX_BULK_PATHS} paths are accepted`, {
      count,
      limit: MAX_BULK_PATHS,
    });
  return parsed;
}

/** Every grant on the object itself, except the scaffolding account's. */
async function userPermissions(
  data: DataStore,
  object: DataObject,
): Promise<{ user: string; permission: Permission }[]> {
  const rows = await data.db
    .selectFrom('data_permissions')
    .select(['username', 'permission'])
    .where('object_id', '=', object.id)
    .where('username', '!=', systemOwner)
    .orderBy('username')
    .execute();
  return rows.map((row) => ({ user: row.username, permission: row.permission }));
}

async function share(
  data: DataStore,
  caller: Caller,
  shareWith: string,
  input: unknown,
  permission: Permission,
): Promise<DataObject> {
  const object = await ownedObject(data, caller, input, 'path', shareWith);
  await data.catalog.grant(data.db, object.id, shareWith, permission);
  return object;
}

async function unshare(
  data: DataStore,
  caller: Caller,
  shareWith: string,
  input: unknown,
): Promise<DataObject> {
  const object = await ownedObject(data, caller, input, 'path', shareWith);
  await data.db
    .deleteFrom('data_permissions')
    .where('object_id', '=', object.id)
    .where('username', '=', shareWith)
    .execute();
  return object;
}

const userQuery = Type.Object(
  { user: Type.String({ minLength: 1 }) },
  { additionalProperties: true },
);
const idParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });

export const sharingRoutes: FastifyPluginAsync<{ data: DataStore }> = async (app, { data }) => {
  const byId = async (id: string): Promise<DataObject> => {
    const object = await data.catalog.byId(id);
    if (!object) throw gatewayError('ERR_DOES_NOT_EXIST', `no data item has the id ${id}`, { id });
    return object;
  };

  app.post('/sharer', { schema: { querystring: userQuery } }, async (request) => {
    const caller = await data.writerOf(request.query);
    const sharing = [];
    for (const entry of entries(request.body, 'sharing')) {
      const results = [];
      const shareWith = await shareeOrRefusal(data, caller, entry.user);
      for (const item of entry.paths) {
        const { path, permission } = (typeof item === 'object' && item !== null ? item : {}) as {
          path?: unknown;
          permission?: unknown;
        };
        try {
          const object = await share(data, caller, shareWith(), path, parsePermission(permission));
          results.push({ path: object.path, permission, success: true });
        } catch (error) {
          results.push({ ...failure(String(path), error), permission });
        }
      }
      sharing.push({ user: entry.user, sharing: results });
    }
    return { user: caller.name, sharing };
  });

  app.post('/unsharer', { schema: { querystring: userQuery } }, async (request) => {
    const caller = await data.writerOf(request.query);
    const results = [];
    for (const entry of entries(request.body, 'unshare')) {
      const perPath: PathResult[] = [];
      const shareWith = await shareeOrRefusal(data, caller, entry.user);
      for (const path of entry.paths) {
        try {
          const object = await unshare(data, caller, shareWith(), path);
          perPath.push({ path: object.path, success: true });
        } catch (error) {
          perPath.push(failure(String(path), error));
        }
      }
      results.push({ user: entry.user, unshare: perPath });
    }
    return { user: caller.name, unshare: results };
  });

  app.post('/permissions-gatherer', { schema: { querystring: userQuery } }, async (request) => {
    const caller = await data.callerOf(request.query);
    const paths = pathList(data, request.body, 'paths');
    const answer = [];
    for (const path of paths) {
      const object = await data.existing(path);
      await data.require(caller, object, 'own');
      answer.push({ path, 'user-permissions': await userPermissions(data, object) });
    }
    return { paths: answer };
  });

  app.get<{ Params: { id: string } }>(
    '/data/:id/permissions',
    { schema: { querystring: userQuery, params: idParams } },
    async (request) => {
      const caller = await data.callerOf(request.query);
      const object = await byId(request.params.id);
      await data.require(caller, object, 'own');
      return {
        id: object.id,
        path: object.path,
        'user-permissions': await userPermissions(data, object),
      };
    },
  );

  app.put<{ Params: { id: string; shareWith: string; permission: string } }>(
    '/data/:id/permissions/:shareWith/:permission',
    {
      schema: {
        querystring: userQuery,
        params: Type.Object({
          id: Type.String(),
          shareWith: Type.String(),
          permission: Type.String(),
        }),
      },
    },
    async (request) => {
      const caller = await data.writerOf(request.query);
      const object = await byId(request.params.id);
      const permission = parsePermission(request.params.permission);
      const shareWith = await sharee(data, caller, request.params.shareWith);
      await share(data, caller, shareWith, object.path, permission);
      return { id: object.id, path: object.path, user: shareWith, permission };
    },
  );

  app.delete<{ Params: { id: string; shareWith: string } }>(
    '/data/:id/permissions/:shareWith',
    {
      schema: {
        querystring: userQuery,
        params: Type.Object({ id: Type.String(), shareWith: Type.String() }),
      },
    },
    async (request) => {
      const caller = await data.writerOf(request.query);
      const object = await byId(request.params.id);
      const shareWith = await sharee(data, caller, request.params.shareWith);
      await unshare(data, caller, shareWith, object.path);
      return { id: object.id, path: object.path, user: shareWith };
    },
  );

  app.post('/anonymizer', { schema: { querystring: userQuery } }, async (request) => {
    const caller = await data.writerOf(request.query);
    const paths = pathList(data, request.body, 'paths');
    const objects: DataObject[] = [];
    for (const path of paths) {
      const object = await data.existing(path);
      await data.require(caller, object, 'own');
      if (object.type !== 'file')
        throw gatewayError(
          'ERR_NOT_A_FILE',
          `${path} is not a file; only files can be made public`,
          { path },
        );
      objects.push(object);
    }
    await inTransaction(data, async (trx) => {
      for (const object of objects) {
        // Never lower a stronger public grant someone gave before.
        if (!atLeast(await data.catalog.permission(everyone, object.path, trx), 'read'))
          await data.catalog.grant(trx, object.id, everyone, 'read');
      }
    });
    const tickets = await createTickets(data, caller, paths, {
      mode: 'read',
      public: true,
      forJob: false,
    });
    return {
      user: caller.name,
      paths: Object.fromEntries(tickets.map((ticket) => [ticket.path, ticket['download-url']])),
    };
  });
};
