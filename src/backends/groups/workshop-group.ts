// The workshop group (routes.md §18 admin: `/admin/groups/workshop`, `/members`): one platform
// group whose members administrators keep, for the attendees of a workshop. The apps service serves
// its routes (the gateway sends them there) and keeps it here, beside the other groups, through the
// door. It is made on first use.
import type { Kysely } from 'kysely';
import { randomUUID } from 'node:crypto';
import type { Database } from '../../store/schema.ts';
import { seenUsers } from './context.ts';
import {
  addMember,
  findGroup,
  membersOf,
  removeMember,
  type GroupKind,
  type GroupRow,
} from './group-store.ts';
import { groupView, subjectsFor, type ResultView } from './group-views.ts';

const workshop = { kind: 'workshop', name: 'workshop' } satisfies { kind: GroupKind; name: string };

async function workshopGroup(db: Kysely<Database>, now: number): Promise<GroupRow> {
  const found = await findGroup(db, workshop.kind, workshop.name);
  if (found) return found;
  // Two first uses at once: one insert wins, both read it back.
  await db
    .insertInto('groups')
    .values({
      id: randomUUID(),
      ...workshop,
      description: 'Workshop attendees',
      creator: 'platform',
      created_on: now,
      modified_on: now,
    })
    .onConflict((conflict) => conflict.columns(['kind', 'name']).doNothing())
    .execute();
  return (await findGroup(db, workshop.kind, workshop.name))!;
}

/** The workshop group as the groups API shows it, with its details. */
export async function workshopGroupView(db: Kysely<Database>, now: number) {
  return groupView(await workshopGroup(db, now), true);
}

/** `{members: [Subject]}` of the workshop group. */
export async function workshopMembers(db: Kysely<Database>, uidDomain: string, now: number) {
  const ids = await membersOf(db, (await workshopGroup(db, now)).id);
  const views = await subjectsFor(db, uidDomain, ids);
  return { members: ids.map((id) => views.get(id)!) };
}

/**
 * Makes the workshop group's members exactly `ids` (short usernames): those the platform has never
 * seen fail alone; members not named are removed. One outcome per name given.
 */
export async function replaceWorkshopMembers(
  db: Kysely<Database>,
  uidDomain: string,
  ids: string[],
  now: number,
): Promise<{ results: ResultView[] }> {
  const group = await workshopGroup(db, now);
  const wanted = [...new Set(ids)];
  const seen = await seenUsers({ db, uidDomain }, wanted);
  const views = await subjectsFor(db, uidDomain, wanted);
  const results: ResultView[] = [];
  const kept = new Set<string>();
  for (const id of wanted) {
    if (!seen.has(id)) {
      results.push({ success: false, subject_id: id, reason: 'subject not found' });
      continue;
    }
    await addMember(db, group.id, id, now);
    kept.add(id);
    results.push({ success: true, subject_id: id, subject_name: views.get(id)!.name });
  }
  for (const member of await membersOf(db, group.id))
    if (!kept.has(member)) await removeMember(db, group.id, member);
  return { results };
}
