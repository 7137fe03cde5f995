// An app's versions as the catalog shows them: one version (or the current one), its
// documentation, and the tools its steps run, each with its container. The catalog's details, the
// app and pipeline editors, publication and integration data read versions through these.
import type { Kysely, Selectable, Transaction } from 'kysely';
import type { Database } from '../../../store/schema.ts';
import { gatewayError } from '../../../common/errors.ts';
import type { AppDefinition } from '../shared/index.ts';
import { answeredContainer } from '../tools/index.ts';

export type Db = Kysely<Database> | Transaction<Database>;
export type VersionRow = Selectable<Database['app_versions']>;

/** One version of an app, or its current one without `versionId`; 404 naming it when it has none. */
export async function versionOf(db: Db, appId: string, versionId?: string): Promise<VersionRow> {
  let query = db.selectFrom('app_versions').selectAll().where('app_id', '=', appId);
  query = versionId
    ? query.where('id', '=', versionId.toLowerCase())
    : query.orderBy('version_order', 'desc').limit(1);
  const row = await query.executeTakeFirst();
  if (!row)
    throw gatewayError('ERR_NOT_FOUND', `app ${appId} has no version ${versionId}`, {
      app_id: appId,
      version_id: versionId,
    });
  return row;
}

/** A version's documentation as the documentation routes answer it (routes.md §16). */
export async function documentationOf(db: Db, appId: string, versionId?: string) {
  const version = await versionOf(db, appId, versionId);
  return {
    app_id: appId,
    version_id: version.id,
    documentation: version.documentation ?? '',
    references: JSON.parse(version.reference_urls) as string[],
  };
}

/** The tools of a version's steps, in step order (a step without a tool has none), each with its container. */
export async function toolsOf(db: Db, definition: AppDefinition) {
  const ids = definition.steps.map((step) => step.tool_id).filter((id): id is string => !!id);
  if (ids.length === 0) return [];
  const rows = await db
    .selectFrom('tools')
    .select([
      'id',
      'name',
      'description',
      'location',
      'type',
      'version',
      'attribution',
      'container',
      'executor',
    ])
    .where('id', 'in', ids)
    .execute();
  const byId = new Map(
    rows.map(({ container, executor, ...row }) => [
      row.id,
      { ...row, container: answeredContainer({ container, executor }) },
    ]),
  );
  return ids.map((id) => byId.get(id)).filter((row) => row !== undefined);
}
