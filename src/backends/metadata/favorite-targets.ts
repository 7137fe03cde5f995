import type { Kysely } from 'kysely';
import type { Database } from '../../store/schema.ts';

/**
 * The shared-store contract of the favourites (embedded only): what data-info reads of the
 * metadata service's `favorites` table when both services are hosted on one store, so that the
 * favourites listing is one query over both tables (data-info's `/favorite-lister`). Nothing else
 * of metadata's tables is read there, and no code writes them: the marked objects' sort keys in
 * `favorites` (`obj_*`) and `favorite_counts` are kept by migration 035's triggers.
 */

/** The kinds of favourite data-info lists: a file or a folder, as they were marked. */
export type FavoriteDataType = 'file' | 'folder';

/**
 * The favourites `owner` marked of these kinds, as `favorites as f` (its `target_id` is the data
 * object's id). A query to extend, not to run: it starts from the owner's rows (primary key
 * `(owner_id, target_id)`), so a join to the data objects reads only those.
 */
export function favoritesOf(db: Kysely<Database>, owner: string, types: FavoriteDataType[]) {
  return db
    .selectFrom('favorites as f')
    .where('f.owner_id', '=', owner)
    .where('f.target_type', 'in', types);
}

/**
 * `favorite_counts` of `owner` for these kinds (migration 035): per object type, how many of the
 * owner's favourites have an existing object, readable or not.
 */
export function favoriteCountsOf(db: Kysely<Database>, owner: string, types: FavoriteDataType[]) {
  return db
    .selectFrom('favorite_counts')
    .where('owner_id', '=', owner)
    .where('target_type', 'in', types);
}
