// Who may do what with an analysis, for the apps service's routes and, through its door, the
// interactive-apps routes (VICE) the analyses service serves: its owner `own`, those it was shared
// with (directly or through a team or list) their granted level, nobody else anything.
import type { Kysely, Selectable } from 'kysely';
import type { Database } from '../../../store/schema.ts';
import type { Level } from '../../permissions/index.ts';
import { levelOf, sharedLevels } from '../shared/index.ts';

/** The analysis (not deleted) and `user`'s level on it; undefined when they hold none. */
export async function analysisAccess(
  db: Kysely<Database>,
  user: string,
  id: string,
): Promise<{ row: Selectable<Database['analyses']>; level: Level } | undefined> {
  const row = await db
    .selectFrom('analyses')
    .selectAll()
    .where('id', '=', id.toLowerCase())
    .where('deleted', '=', false)
    .executeTakeFirst();
  if (!row) return undefined;
  const level = levelOf(
    row.username,
    user,
    (await sharedLevels(db, 'analysis', [row.id], user)).get(row.id),
  );
  return level ? { row, level } : undefined;
}
