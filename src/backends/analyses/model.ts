// Reading quick launches (backends.md §6): who may view which (their own and public ones), and
// the QuickLaunch shape they are answered in.
import type { Kysely, Selectable } from 'kysely';
import { asBoolean } from '../../store/sqlite-booleans.ts';
import type { Database } from '../../store/schema.ts';
import { qualifiedUsername } from '../../common/users.ts';
import { gatewayError } from '../../common/errors.ts';

export type QuickLaunchRow = Selectable<Database['quick_launches']>;

export interface AnalysesDeps {
  db: Kysely<Database>;
  uidDomain: string;
  now: () => number;
}

export const isPublic = (row: QuickLaunchRow) => asBoolean(row.is_public);

/** An analysis submission as stored: an object, with `config` keyed `<step id>_<parameter id>`. */
export type Submission = Record<string, unknown> & { config?: Record<string, unknown> };

export const submissionOf = (row: QuickLaunchRow) => JSON.parse(row.submission) as Submission;

/** QuickLaunch = {id, creator, app_id, app_version_id, name, description, is_public, submission}; creator qualified. */
export function describe(row: QuickLaunchRow, uidDomain: string) {
  return {
    id: row.id,
    creator: qualifiedUsername(row.creator, uidDomain),
    app_id: row.app_id,
    app_version_id: row.app_version_id,
    name: row.name,
    description: row.description,
    is_public: isPublic(row),
    submission: submissionOf(row),
  };
}

/** Quick launches `user` may view: their own and the public ones. */
export function viewable(db: Kysely<Database>, user: string) {
  return db
    .selectFrom('quick_launches')
    .where((eb) =>
      eb.or([eb('quick_launches.creator', '=', user), eb('quick_launches.is_public', '=', true)]),
    );
}

export const notFound = (id: string) =>
  gatewayError('ERR_NOT_FOUND', `quick launch ${id} not found`, { id });

/** One quick launch `user` may view, or 404 (also for one that exists but is someone else's private one). */
export async function viewableQuickLaunch(
  db: Kysely<Database>,
  user: string,
  id: string,
): Promise<QuickLaunchRow> {
  const row = await viewable(db, user)
    .selectAll('quick_launches')
    .where('quick_launches.id', '=', id.toLowerCase())
    .executeTakeFirst();
  if (!row) throw notFound(id);
  return row;
}

/** One quick launch `user` created: 404 when they cannot view it, 403 when it is another's public one. */
export async function ownQuickLaunch(
  db: Kysely<Database>,
  user: string,
  id: string,
): Promise<QuickLaunchRow> {
  const row = await viewableQuickLaunch(db, user, id);
  if (row.creator !== user)
    throw gatewayError('ERR_NOT_OWNER', `only its creator may change quick launch ${id}`, {
      id,
      user,
    });
  return row;
}
