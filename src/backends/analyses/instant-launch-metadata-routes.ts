// Instant launches' AVUs (routes.md §19): kept in the metadata `avus` table with target type
// `instant_launch`, as the reference keeps them in the metadata service. The web UI's navigation
// drawer lists the instant launches carrying `ui_location=nav_drawer` on every page, signed in or
// not (`/instantlaunches/metadata/full`, `{instant_launches: [...]}` as the UI reads it);
// administrators read, add to (POST) and reset (PUT) one's AVUs. AVUs name their attribute `attr`,
// the metadata service's name, which the web UI sends and reads; `attribute`, this service's first
// name for it, is still taken and answered beside it.
import { randomUUID } from 'node:crypto';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { Type, type Static } from 'typebox';
import { gatewayError } from '../../common/errors.ts';
import type { AnalysesDeps } from './model.ts';
import {
  fullInstantLaunch,
  instantLaunchNotFound,
  optionalCaller,
  visibleInstantLaunches,
} from './instant-launch-model.ts';

// Either name of the attribute is taken (checked in `attributeOf`); the rest of an AVU the
// listing answered (`id`, `target_id`, ...) may come back with it and is ignored.
const Avu = Type.Object(
  {
    attr: Type.Optional(Type.String({ minLength: 1 })),
    attribute: Type.Optional(Type.String({ minLength: 1 })),
    value: Type.String(),
    unit: Type.Optional(Type.String()),
  },
  { additionalProperties: true },
);
type Avu = Static<typeof Avu>;
const AvuList = Type.Object({ avus: Type.Array(Avu) });
type AvuList = Static<typeof AvuList>;
const IdParams = Type.Object({ id: Type.String({ format: 'uuid' }) });
type IdRequest = { Params: { id: string } };
const AvuQuery = Type.Object({
  attribute: Type.Optional(Type.String()),
  value: Type.Optional(Type.String()),
  unit: Type.Optional(Type.String()),
});
type AvuQuery = Static<typeof AvuQuery>;

const target = 'instant_launch' as const;

export const instantLaunchMetadataRoutes: FastifyPluginAsync<AnalysesDeps> = async (
  app,
  { db, uidDomain, now },
) => {
  const describeAvu = (row: {
    id: string;
    attribute: string;
    value: string;
    unit: string;
    target_id: string;
  }) => ({
    id: row.id,
    attr: row.attribute,
    attribute: row.attribute,
    value: row.value,
    unit: row.unit,
    target_id: row.target_id,
    target_type: target,
  });
  /** AVUs on instant launches matching the given attribute, value and unit (an empty one matches any). */
  const matching = (query: AvuQuery) => {
    let select = db
      .selectFrom('avus')
      .select(['id', 'attribute', 'value', 'unit', 'target_id'])
      .where('target_type', '=', target);
    if (query.attribute) select = select.where('attribute', '=', query.attribute);
    if (query.value) select = select.where('value', '=', query.value);
    if (query.unit) select = select.where('unit', '=', query.unit);
    return select.orderBy('created_on').orderBy('id');
  };
  const avusOf = async (id: string) => ({
    avus: (await matching({}).where('target_id', '=', id.toLowerCase()).execute()).map(describeAvu),
  });
  const existing = async (id: string) => {
    const row = await db
      .selectFrom('instant_launches')
      .select('id')
      .where('id', '=', id.toLowerCase())
      .executeTakeFirst();
    if (!row) throw instantLaunchNotFound(id);
    return row.id;
  };
  const author = (request: FastifyRequest) => optionalCaller(request, uidDomain) ?? 'admin';

  app.get<{ Querystring: AvuQuery }>(
    '/instantlaunches/metadata',
    { schema: { querystring: AvuQuery } },
    async (request) => ({ avus: (await matching(request.query).execute()).map(describeAvu) }),
  );
  app.get<{ Querystring: AvuQuery }>(
    '/instantlaunches/metadata/full',
    { schema: { querystring: AvuQuery } },
    async (request) => {
      const ids = matching(request.query).clearSelect().select('target_id');
      // The gateway always names the caller (`anonymous` included) on the user route; the
      // administrators' route names none and sees every instant launch.
      const user = optionalCaller(request, uidDomain);
      const rows = await visibleInstantLaunches(db, user, user === undefined)
        .where('instant_launches.id', 'in', ids)
        .execute();
      return { instant_launches: rows.map((row) => fullInstantLaunch(row, uidDomain)) };
    },
  );
  app.get<IdRequest>(
    '/instantlaunches/:id/metadata',
    { schema: { params: IdParams } },
    async (request) => avusOf(await existing(request.params.id)),
  );

  /** An AVU's attribute, by either name (400 naming the field when neither or two differing). */
  const attributeOf = (avu: Avu, index: number) => {
    const { attr, attribute } = avu;
    if (attr !== undefined && attribute !== undefined && attr !== attribute)
      throw gatewayError(
        'ERR_BAD_OR_MISSING_FIELD',
        `avus.${index} names two different attributes ("attr" and "attribute")`,
        { field: `avus.${index}.attr` },
      );
    const name = attr ?? attribute;
    if (name === undefined)
      throw gatewayError('ERR_BAD_OR_MISSING_FIELD', `missing body field "avus.${index}.attr"`, {
        field: `avus.${index}.attr`,
      });
    return name;
  };

  /** Adds the AVUs not there yet; with `replace`, removes the others first. */
  const write = async (
    request: FastifyRequest<IdRequest & { Body: AvuList }>,
    replace: boolean,
  ) => {
    const sent = request.body.avus.map((avu, index) => ({
      attribute: attributeOf(avu, index),
      value: avu.value,
      unit: avu.unit ?? '',
    }));
    const id = await existing(request.params.id);
    const user = author(request);
    await db.transaction().execute(async (trx) => {
      if (replace)
        await trx
          .deleteFrom('avus')
          .where('target_type', '=', target)
          .where('target_id', '=', id)
          .execute();
      const present = await trx
        .selectFrom('avus')
        .select(['attribute', 'value', 'unit'])
        .where('target_type', '=', target)
        .where('target_id', '=', id)
        .execute();
      const keyOf = (avu: { attribute: string; value: string; unit: string }) =>
        JSON.stringify([avu.attribute, avu.value, avu.unit]);
      const seen = new Set(present.map(keyOf));
      const at = now();
      for (const avu of sent) {
        if (seen.has(keyOf(avu))) continue;
        seen.add(keyOf(avu));
        await trx
          .insertInto('avus')
          .values({
            id: randomUUID(),
            attribute: avu.attribute,
            value: avu.value,
            unit: avu.unit,
            target_id: id,
            target_type: target,
            created_by: user,
            modified_by: user,
            created_on: at,
            modified_on: at,
          })
          .execute();
      }
    });
    return avusOf(id);
  };
  const options = { schema: { params: IdParams, body: AvuList } };
  app.post<IdRequest & { Body: AvuList }>('/instantlaunches/admin/:id/metadata', options, (r) =>
    write(r, false),
  );
  app.put<IdRequest & { Body: AvuList }>('/instantlaunches/admin/:id/metadata', options, (r) =>
    write(r, true),
  );
};
