// Copies of apps and of their versions, for the app editor (editor-routes.ts) and pipelines
// (pipelines/pipeline-routes.ts): a version copied as it is (definition, documentation, references,
// its steps' tools), as a new version of the same app or as the first of a new private app.
import { randomUUID } from 'node:crypto';
import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../../../store/schema.ts';
import type { AppRow, VersionRow } from '../catalog/index.ts';
import { insertApp, nextOrder, type Caller } from './app-edits.ts';

/** A label like `label` that none of `taken` is: `label`, `label (2)`, `label (3)`, ... */
function freeLabel(label: string, taken: string[]): string {
  if (!taken.includes(label)) return label;
  for (let n = 2; ; n += 1) if (!taken.includes(`${label} (${n})`)) return `${label} (${n})`;
}

/** A copy of `version` as a version of `appId` (the same app or another), its tools too. */
async function copyVersion(
  trx: Transaction<Database>,
  version: VersionRow,
  appId: string,
  fields: { version: string; version_order: number; created_by: string; created_on: number },
): Promise<string> {
  const id = randomUUID();
  await trx
    .insertInto('app_versions')
    .values({ ...version, ...fields, id, app_id: appId })
    .execute();
  const steps = await trx
    .selectFrom('app_version_tools')
    .select(['step_number', 'tool_id'])
    .where('app_version_id', '=', version.id)
    .execute();
  if (steps.length > 0)
    await trx
      .insertInto('app_version_tools')
      .values(steps.map((step) => ({ ...step, app_version_id: id })))
      .execute();
  return id;
}

/**
 * A copy of one of an app's versions as its newest (current) version, labelled `<label> (copy)`
 * (`(2)`, `(3)`... when taken); answers the new version's id.
 */
export async function copyAsNewVersion(
  db: Kysely<Database>,
  row: AppRow,
  version: VersionRow,
  user: string,
  at: number,
): Promise<string> {
  const taken = (
    await db.selectFrom('app_versions').select('version').where('app_id', '=', row.id).execute()
  ).map((other) => other.version);
  return db.transaction().execute(async (trx) => {
    const made = await copyVersion(trx, version, row.id, {
      version: freeLabel(`${version.version} (copy)`, taken),
      version_order: await nextOrder(trx, row.id),
      created_by: user,
      created_on: at,
    });
    await trx.updateTable('apps').set({ edited_date: at }).where('id', '=', row.id).execute();
    return made;
  });
}

/** A private app of `caller` named "Copy of <name>" holding a copy of `version`; answers its id. */
export async function copyAsNewApp(
  db: Kysely<Database>,
  source: AppRow,
  version: VersionRow,
  caller: Caller,
  at: number,
): Promise<string> {
  const id = randomUUID();
  await db.transaction().execute(async (trx) => {
    await insertApp(
      trx,
      {
        id,
        name: `Copy of ${source.name}`.slice(0, 255),
        description: source.description,
        wikiUrl: source.wiki_url,
      },
      caller,
      at,
    );
    await copyVersion(trx, version, id, {
      version: version.version,
      version_order: 1,
      created_by: caller.user,
      created_on: at,
    });
  });
  return id;
}
