// Reference genomes (routes.md §17, §18; docs/api/reference-genomes.md): named data-store paths
// that administrators keep and launch forms offer for reference-genome parameters. Users list
// them; administrators add, change and delete them (marked deleted, or removed with
// `permanent=true`). A submission names a genome by id; the job gets its path.
import { randomUUID } from 'node:crypto';
import type { FastifyPluginAsync } from 'fastify';
import type { Kysely, Selectable } from 'kysely';
import type { Database } from '../../../store/schema.ts';
import { asBoolean } from '../../../store/sqlite-booleans.ts';
import { booleanParam, requireUserParam, singleParam } from '../../../common/query-params.ts';
import { qualifiedUsername } from '../../../common/users.ts';
import { isJsonObject } from '../../../common/request-body.ts';
import { gatewayError } from '../../../common/errors.ts';
import { isUuid } from '../../metadata/index.ts';

type GenomeRow = Selectable<Database['reference_genomes']>;

/** Launch-form parameter types whose value is a reference genome. */
export const referenceGenomeParameterTypes: readonly string[] = [
  'ReferenceGenome',
  'ReferenceSequence',
  'ReferenceAnnotation',
];

const maxNameLength = 512;
const maxPathLength = 2048;

const bad = (field: string, reason: string) =>
  gatewayError('ERR_BAD_OR_MISSING_FIELD', reason, { field });
const notFound = (id: string) =>
  gatewayError('ERR_NOT_FOUND', `no reference genome ${id}`, { reference_genome_id: id });

/** A genome as the apps service answers it (dates ISO 8601, like other apps listings). */
export function genomeJson(row: GenomeRow) {
  return {
    id: row.id,
    name: row.name,
    path: row.path,
    deleted: asBoolean(row.deleted),
    created_by: row.created_by,
    created_on: new Date(Number(row.created_on)).toISOString(),
    last_modified_by: row.last_modified_by,
    last_modified_on: new Date(Number(row.last_modified_on)).toISOString(),
  };
}

async function findGenome(db: Kysely<Database>, id: string): Promise<GenomeRow> {
  const row = isUuid(id)
    ? await db
        .selectFrom('reference_genomes')
        .selectAll()
        .where('id', '=', id.toLowerCase())
        .executeTakeFirst()
    : undefined;
  if (!row) throw notFound(id);
  return row;
}

/**
 * The genome a launch form's value names: its id, or an object with `id` (the genome as a client
 * lists it). Answers undefined for a value naming no genome, or a deleted one (unless
 * `includeDeleted`: a past job's parameters still name it).
 */
export async function chosenGenome(
  db: Kysely<Database>,
  value: unknown,
  includeDeleted = false,
): Promise<GenomeRow | undefined> {
  const id = isJsonObject(value) ? value.id : value;
  if (!isUuid(id)) return undefined;
  const row = await db
    .selectFrom('reference_genomes')
    .selectAll()
    .where('id', '=', id.toLowerCase())
    .executeTakeFirst();
  return row && (includeDeleted || !asBoolean(row.deleted)) ? row : undefined;
}

function textField(
  body: Record<string, unknown>,
  field: 'name' | 'path',
  required: boolean,
): string | undefined {
  const value = body[field];
  if (value === undefined && !required) return undefined;
  const max = field === 'name' ? maxNameLength : maxPathLength;
  if (typeof value !== 'string' || value.trim() === '' || value.length > max)
    throw bad(field, `"${field}" must be a non-empty string of at most ${max} characters`);
  const text = value.trim();
  if (field === 'path' && !text.startsWith('/'))
    throw bad('path', '"path" must be an absolute data-store path');
  return text;
}

/** Names are unique among genomes not deleted (any letter case): users pick genomes by name. */
async function checkNameFree(db: Kysely<Database>, name: string, except?: string): Promise<void> {
  let query = db
    .selectFrom('reference_genomes')
    .select(['id', 'name'])
    .where('deleted', '=', false);
  if (except) query = query.where('id', '!=', except);
  const clash = (await query.execute()).find(
    (row) => row.name.toLowerCase() === name.toLowerCase(),
  );
  if (clash)
    throw gatewayError('ERR_EXISTS', `a reference genome is already named ${clash.name}`, {
      name,
      id: clash.id,
    });
}

export const referenceGenomeRoutes: FastifyPluginAsync<{
  db: Kysely<Database>;
  uidDomain: string;
  now: () => number;
}> = async (app, { db, uidDomain, now }) => {
  const caller = (query: unknown) => qualifiedUsername(requireUserParam(query), uidDomain);

  app.get('/reference-genomes', async (request) => {
    const includeDeleted = booleanParam(request.query, 'deleted', false);
    const createdBy = singleParam(request.query, 'created_by');
    let query = db.selectFrom('reference_genomes').selectAll();
    if (!includeDeleted) query = query.where('deleted', '=', false);
    if (createdBy) query = query.where('created_by', '=', qualifiedUsername(createdBy, uidDomain));
    const rows = await query.orderBy('name').orderBy('id').execute();
    return { genomes: rows.map(genomeJson) };
  });

  app.get<{ Params: { id: string } }>('/reference-genomes/:id', async (request) =>
    genomeJson(await findGenome(db, request.params.id)),
  );

  app.post('/admin/reference-genomes', async (request) => {
    const body = request.body;
    if (!isJsonObject(body)) throw bad('body', 'the body must be {name, path}');
    const name = textField(body, 'name', true)!;
    const path = textField(body, 'path', true)!;
    await checkNameFree(db, name);
    const by = caller(request.query);
    const at = now();
    const row: GenomeRow = {
      id: randomUUID(),
      name,
      path,
      deleted: false,
      created_by: by,
      created_on: at,
      last_modified_by: by,
      last_modified_on: at,
    };
    await db
      .insertInto('reference_genomes')
      .values({ ...row, deleted: false })
      .execute();
    return genomeJson(row);
  });

  app.patch<{ Params: { id: string } }>('/admin/reference-genomes/:id', async (request) => {
    const current = await findGenome(db, request.params.id);
    const body = request.body;
    if (!isJsonObject(body)) throw bad('body', 'the body must be {name?, path?, deleted?}');
    const name = textField(body, 'name', false);
    const path = textField(body, 'path', false);
    const deleted = body.deleted;
    if (deleted !== undefined && typeof deleted !== 'boolean')
      throw bad('deleted', '"deleted" must be true or false');
    const willBeDeleted = deleted ?? asBoolean(current.deleted);
    if (!willBeDeleted) await checkNameFree(db, name ?? current.name, current.id);
    const changes = {
      ...(name === undefined ? {} : { name }),
      ...(path === undefined ? {} : { path }),
      deleted: willBeDeleted,
      last_modified_by: caller(request.query),
      last_modified_on: now(),
    };
    await db.updateTable('reference_genomes').set(changes).where('id', '=', current.id).execute();
    return genomeJson({ ...current, ...changes });
  });

  app.delete<{ Params: { id: string } }>('/admin/reference-genomes/:id', async (request) => {
    const current = await findGenome(db, request.params.id);
    if (booleanParam(request.query, 'permanent', false)) {
      await db.deleteFrom('reference_genomes').where('id', '=', current.id).execute();
      return genomeJson(current);
    }
    const changes = {
      deleted: true,
      last_modified_by: caller(request.query),
      last_modified_on: now(),
    };
    await db.updateTable('reference_genomes').set(changes).where('id', '=', current.id).execute();
    return genomeJson({ ...current, ...changes });
  });
};
