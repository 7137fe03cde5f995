import { randomUUID } from 'node:crypto';
import type { Store } from '../../../store/database.ts';
import { userIdFor } from '../../../store/users.ts';
import { qualifiedUsername } from '../../../common/users.ts';
import { requireUserParam } from '../../../common/query-params.ts';

interface AppsIdentity {
  user: string;
  email?: string;
  'first-name'?: string;
  'last-name'?: string;
}

/** The apps service qualifies the short `user` itself (backends.md §1.2); a caller it has never seen is recorded. */
export async function callerId(store: Store, query: unknown, uidDomain: string): Promise<string> {
  const user = requireUserParam(query);
  const { email, 'first-name': firstName, 'last-name': lastName } = query as AppsIdentity;
  return userIdFor(store.db, qualifiedUsername(user, uidDomain), {
    ...(email ? { email } : {}),
    ...(firstName ? { firstName } : {}),
    ...(lastName ? { lastName } : {}),
  });
}

/** The caller's workspace, made on first use; `new_workspace` says whether this call made it. */
export async function workspaceOf(store: Store, userId: string) {
  const find = () =>
    store.db.selectFrom('workspace').selectAll().where('user_id', '=', userId).executeTakeFirst();
  const existing = await find();
  let created = false;
  if (!existing) {
    const inserted = await store.db
      .insertInto('workspace')
      .values({
        id: randomUUID(),
        user_id: userId,
        root_category_id: randomUUID(),
        is_public: false,
      })
      .onConflict((conflict) => conflict.column('user_id').doNothing())
      .executeTakeFirst();
    created = Number(inserted.numInsertedOrUpdatedRows ?? 0) > 0;
  }
  const row = existing ?? (await find())!;
  return {
    id: row.id,
    user_id: row.user_id,
    root_category_id: row.root_category_id,
    is_public: Boolean(row.is_public),
    new_workspace: created,
  };
}
