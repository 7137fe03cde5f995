// The default mappings of data files to instant launches (backends.md §6, routes.md §19): one
// document, versioned, of named entries, each matching files by a glob pattern of their names
// (`kind: "glob"`) or by their info type (`kind: "infoType"`) and naming the instant launch a file
// opens with (`default`) and the others it may open with (`compatible`), as the web UI's
// administrators' Data mapping tab sends them. The latest version is in force; administrators add
// a version (PUT), change the latest (POST; the first one when there is none, as the UI posts once
// it has read the empty mapping) or delete it (DELETE), which puts the one before back in force.
// No version yet: an empty mapping, which the UI's data pages read without complaint.
import { randomUUID } from 'node:crypto';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { Type, type Static } from 'typebox';
import { Value } from 'typebox/value';
import { gatewayError } from '../../common/errors.ts';
import { schemaErrorField } from '../../common/error-replies.ts';
import { qualifiedUsername } from '../../common/users.ts';
import type { AnalysesDeps } from './model.ts';
import { optionalCaller, plainInstantLaunch } from './instant-launch-model.ts';

// An instant launch as the UI sends it (`{id, quick_launch_id, added_by, added_on}`); only `id`
// is read, the rest is answered afresh from the instant launch itself.
const InstantLaunchRef = Type.Object(
  { id: Type.String({ format: 'uuid' }) },
  { additionalProperties: true },
);
const Selector = Type.Object(
  {
    // `pattern` is this service's first name for a glob: still taken, answered as `glob`.
    kind: Type.Enum(['glob', 'infoType', 'pattern']),
    // The glob or info type; the entry's name when absent (the first form, keyed by the glob).
    pattern: Type.Optional(Type.String({ minLength: 1 })),
    default: InstantLaunchRef,
    compatible: Type.Optional(Type.Array(InstantLaunchRef)),
  },
  { additionalProperties: true },
);
type Selector = Static<typeof Selector>;
type Mapping = Record<string, Selector>;
// Each entry is checked on its own (`selectors`), so that an error names the field inside the
// entry and the entry apart, whatever characters its name holds.
const MappingBody = Type.Record(Type.String({ minLength: 1 }), Type.Unknown());
type MappingBody = Static<typeof MappingBody>;

const path = '/instantlaunches/mappings/defaults/latest';
const noMapping = () =>
  gatewayError('ERR_NOT_FOUND', 'no default instant-launch mapping has been set', {});

/** The body's entries as selectors: 400 naming the entry (`mapping`) and its field otherwise. */
function selectors(body: MappingBody): Mapping {
  const mapping: Mapping = {};
  for (const [name, entry] of Object.entries(body)) {
    const [first] = Value.Errors(Selector, entry);
    if (first) {
      const named = schemaErrorField(first);
      const missing = named.missing;
      // An entry that is not an object at all is itself the wrong field.
      const field = named.field || name;
      const params = first.params as { allowedValues?: unknown[] };
      const detail = params.allowedValues
        ? `must be one of ${params.allowedValues.filter((kind) => kind !== 'pattern').join(', ')}`
        : first.message;
      throw gatewayError(
        'ERR_BAD_OR_MISSING_FIELD',
        `mapping entry "${name}": ${missing ? 'missing' : 'invalid'} field "${field}"${missing ? '' : `: ${detail}`}`,
        { field, mapping: name },
      );
    }
    mapping[name] = entry as Selector;
  }
  return mapping;
}

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

  /**
   * A version as the web UI reads it: each entry with its `kind` (`glob` or `infoType`), its
   * `pattern`, and its instant launches as they are now (the UI launches `default.quick_launch_id`).
   */
  const answer = async (row: { id: string; version: number; instant_launches: string }) => {
    const stored = JSON.parse(row.instant_launches) as Mapping;
    const refs = Object.values(stored).flatMap((entry) => [
      entry.default,
      ...(entry.compatible ?? []),
    ]);
    const ids = [...new Set(refs.map((ref) => ref.id.toLowerCase()))];
    const launches = new Map(
      (ids.length === 0
        ? []
        : await db
            .selectFrom('instant_launches')
            .select(['id', 'quick_launch_id', 'added_by', 'added_on'])
            .where('id', 'in', ids)
            .execute()
      ).map((launch) => [launch.id, plainInstantLaunch(launch, uidDomain)]),
    );
    const current = (ref: { id: string }) => ({ ...ref, ...launches.get(ref.id.toLowerCase()) });
    const mapping = Object.fromEntries(
      Object.entries(stored).map(([name, entry]) => [
        name,
        {
          ...entry,
          kind: entry.kind === 'pattern' ? 'glob' : entry.kind,
          pattern: entry.pattern ?? name,
          default: current(entry.default),
          compatible: (entry.compatible ?? []).map(current),
        },
      ]),
    );
    return { id: row.id, version: String(row.version), mapping };
  };

  /** Every instant launch a mapping names must exist: 400 naming the entry and field otherwise. */
  const checked = async (mapping: Mapping) => {
    const named = Object.entries(mapping).flatMap(([name, entry]) => [
      { name, field: 'default.id', id: entry.default.id.toLowerCase() },
      ...(entry.compatible ?? []).map((ref, index) => ({
        name,
        field: `compatible.${index}.id`,
        id: ref.id.toLowerCase(),
      })),
    ]);
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
        `mapping entry "${unknown.name}" names instant launch ${unknown.id}, which does not exist`,
        { field: unknown.field, mapping: unknown.name, id: unknown.id },
      );
    return JSON.stringify(mapping);
  };
  const who = (request: FastifyRequest) => {
    const { username } = request.query as { username?: unknown };
    const name = typeof username === 'string' && username ? username : undefined;
    return qualifiedUsername(optionalCaller(request, uidDomain) ?? name ?? 'admin', uidDomain);
  };
  /** Adds the next version. */
  const added = async (request: FastifyRequest, text: string) => {
    const row = {
      id: randomUUID(),
      version: ((await latest())?.version ?? 0) + 1,
      instant_launches: text,
      added_by: who(request),
      added_on: now(),
    };
    await db.insertInto('default_instant_launches').values(row).execute();
    return answer(row);
  };

  app.get(path, async () => {
    const row = await latest();
    return row ? answer(row) : { id: null, version: null, mapping: {} };
  });
  const options = { schema: { body: MappingBody } };
  app.put<{ Body: MappingBody }>(path, options, async (request) =>
    added(request, await checked(selectors(request.body))),
  );
  app.post<{ Body: MappingBody }>(path, options, async (request) => {
    const text = await checked(selectors(request.body));
    const row = await latest();
    if (!row) return added(request, text);
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
