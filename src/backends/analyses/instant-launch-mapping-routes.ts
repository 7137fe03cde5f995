// The default mappings of data files to instant launches (backends.md §6, routes.md §19): one
// document, versioned, keyed by a file-name glob pattern or an info type, each naming the
// instant launch a file opens with (`default`) and the others it may open with (`compatible`).
// The latest version is in force; administrators add a version (PUT), change the latest (POST) or
// delete it (DELETE), which puts the one before back in force. No version yet: 404, which the
// web UI reads as "no mapping".
import { randomUUID } from 'node:crypto';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { Type, type Static } from 'typebox';
import { gatewayError } from '../../common/errors.js';
import { qualifiedUsername } from '../../common/users.js';
import type { AnalysesDeps } from './model.js';
import { optionalCaller } from './instant-launch-model.js';

const InstantLaunchRef = Type.Object({ id: Type.String({ format: 'uuid' }) });
const Selector = Type.Object({
  kind: Type.Union([Type.Literal('pattern'), Type.Literal('infoType')]),
  default: InstantLaunchRef,
  compatible: Type.Optional(Type.Array(InstantLaunchRef)),
});
const Mapping = Type.Record(Type.String({ minLength: 1 }), Selector);
type Mapping = Static<typeof Mapping>;

const path = '/instantlaunches/mappings/defaults/latest';
const noMapping = () =>
  gatewayError('ERR_NOT_FOUND', 'no default instant-launch mapping has been set', {});

export const instantLaunchMappingRoutes: FastifyPluginAsync<AnalysesDeps> = async (
  app,
  { db, uidDomain, now },
) => {
  const latest = () =>
    db
      .selectFrom('default_instant_launches')
      .selectAll()
      .orderBy('version', 'desc')
      .limit(1)
      .executeTakeFirst();
  const answer = (row: { id: string; version: number; instant_launches: string }) => ({
    id: row.id,
    version: String(row.version),
    mapping: JSON.parse(row.instant_launches) as Mapping,
  });
  /** Every instant launch a mapping names must exist: 400 naming the pattern otherwise. */
  const checked = async (mapping: Mapping) => {
    const named = Object.entries(mapping).flatMap(([pattern, selector]) =>
      [selector.default, ...(selector.compatible ?? [])].map((ref) => ({
        pattern,
        id: ref.id.toLowerCase(),
      })),
    );
    const ids = [...new Set(named.map((each) => each.id))];
    const known = new Set(
      ids.length === 0
        ? []
        : (
            await db.selectFrom('instant_launches').select('id').where('id', 'in', ids).execute()
          ).map((row) => row.id),
    );
    const unknown = named.find((each) => !known.has(each.id));
    if (unknown)
      throw gatewayError(
        'ERR_BAD_OR_MISSING_FIELD',
        `pattern ${unknown.pattern} names instant launch ${unknown.id}, which does not exist`,
        { field: unknown.pattern, id: unknown.id },
      );
    return JSON.stringify(mapping);
  };
  const who = (request: FastifyRequest) => {
    const { username } = request.query as { username?: unknown };
    const name = typeof username === 'string' && username ? username : undefined;
    return qualifiedUsername(optionalCaller(request, uidDomain) ?? name ?? 'admin', uidDomain);
  };

  app.get(path, async () => {
    const row = await latest();
    if (!row) throw noMapping();
    return answer(row);
  });
  app.put<{ Body: Mapping }>(path, { schema: { body: Mapping } }, async (request) => {
    const text = await checked(request.body);
    const row = {
      id: randomUUID(),
      version: ((await latest())?.version ?? 0) + 1,
      instant_launches: text,
      added_by: who(request),
      added_on: now(),
    };
    await db.insertInto('default_instant_launches').values(row).execute();
    return answer(row);
  });
  app.post<{ Body: Mapping }>(path, { schema: { body: Mapping } }, async (request) => {
    const text = await checked(request.body);
    const row = await latest();
    if (!row) throw noMapping();
    await db
      .updateTable('default_instant_launches')
      .set({ instant_launches: text })
      .where('id', '=', row.id)
      .execute();
    return answer({ ...row, instant_launches: text });
  });
  app.delete(path, async () => {
    const row = await latest();
    if (!row) throw noMapping();
    await db.deleteFrom('default_instant_launches').where('id', '=', row.id).execute();
    return answer(row);
  });
};
