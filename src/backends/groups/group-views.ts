// How the groups service shows groups, subjects and privileges (the groups API's shapes, which the
// web UI's Teams and Communities pages read: `groups[]`, `members[]`, `privileges[]`, `results[]`).
import type { Kysely } from 'kysely';
import type { Database } from '../../store/schema.ts';
import { qualifiedUsername } from '../../common/users.ts';
import { everyone, type GroupRow } from './group-store.ts';

type UserRow = Pick<Database['users'], 'username' | 'email' | 'first_name' | 'last_name'>;

export interface SubjectView {
  id: string;
  name: string;
  first_name: string;
  last_name: string;
  email: string;
  institution: string;
  description: string;
  source_id: string;
  display_name: string;
}

/** A groups-service subject for a user the platform has seen; `id` is the short username. */
export function subjectOf(row: UserRow, uidDomain: string): SubjectView {
  const suffix = `@${uidDomain}`;
  const id = row.username.endsWith(suffix) ? row.username.slice(0, -suffix.length) : row.username;
  const firstName = row.first_name ?? '';
  const lastName = row.last_name ?? '';
  const name = `${firstName} ${lastName}`.trim() || id;
  return {
    id,
    name,
    first_name: firstName,
    last_name: lastName,
    email: row.email ?? '',
    institution: '',
    description: '',
    source_id: 'platform',
    display_name: name,
  };
}

/** A team or collaborator list as a subject things are shared with (`source_id` `g:gsa`). */
export function groupSubjectOf(group: GroupRow): SubjectView {
  return {
    id: group.id,
    name: group.name,
    first_name: '',
    last_name: '',
    email: '',
    institution: '',
    description: group.description,
    source_id: 'g:gsa',
    display_name: group.name,
  };
}

/** The public, as the groups API names it. */
const everyoneSubject: SubjectView = {
  id: everyone,
  name: 'EveryEntity',
  first_name: '',
  last_name: '',
  email: '',
  institution: '',
  description: '',
  source_id: 'g:isa',
  display_name: 'EveryEntity',
};

/**
 * Subjects for short usernames, in the order given: users the platform has seen with their
 * names and e-mail, others with their id alone.
 */
export async function subjectsFor(
  db: Kysely<Database>,
  uidDomain: string,
  ids: string[],
): Promise<Map<string, SubjectView>> {
  const found = new Map<string, SubjectView>();
  const unique = [...new Set(ids)].filter((id) => id !== everyone);
  if (unique.length > 0) {
    const rows = await db
      .selectFrom('users')
      .select(['username', 'email', 'first_name', 'last_name'])
      .where(
        'username',
        'in',
        unique.map((id) => qualifiedUsername(id, uidDomain)),
      )
      .execute();
    for (const row of rows) {
      const subject = subjectOf(row, uidDomain);
      found.set(subject.id, subject);
    }
  }
  const views = new Map<string, SubjectView>();
  for (const id of ids) {
    if (id === everyone) views.set(id, everyoneSubject);
    else
      views.set(
        id,
        found.get(id) ?? {
          ...everyoneSubject,
          id,
          name: id,
          display_name: id,
          source_id: 'platform',
        },
      );
  }
  return views;
}

/** The part of a group's name after its owner (`alice:my team` → `my team`). */
export function shortName(group: Pick<GroupRow, 'name' | 'kind'>): string {
  if (group.kind === 'community') return group.name;
  return group.name.slice(group.name.indexOf(':') + 1);
}

/**
 * A group as the groups API shows it; `details` adds who made it and when, and `creator` (their
 * subject, from `detailedGroupViews`) as `detail.created_by_detail`: the web UI's Teams list shows
 * `detail.created_by_detail.name` as the creator's name.
 */
export function groupView(group: GroupRow, details = false, creator?: SubjectView) {
  const extension = shortName(group);
  return {
    id: group.id,
    name: group.name,
    type: 'group',
    description: group.description,
    display_extension: extension,
    display_name: group.name,
    extension,
    ...(details
      ? {
          detail: {
            created_at: Number(group.created_on),
            created_by: group.creator,
            ...(creator ? { created_by_detail: creator } : {}),
            modified_at: Number(group.modified_on),
            has_composite: false,
            is_composite_factor: false,
            type_names: [],
          },
        }
      : {}),
  };
}

/** Groups as `groupView` shows them with details, each with its creator's subject (one lookup for all). */
export async function detailedGroupViews(
  db: Kysely<Database>,
  uidDomain: string,
  groups: GroupRow[],
) {
  const creators = await subjectsFor(
    db,
    uidDomain,
    groups.map((group) => group.creator),
  );
  return groups.map((group) => groupView(group, true, creators.get(group.creator)));
}

/** A group as `groupView` shows it with details, its creator's subject included. */
export async function detailedGroupView(db: Kysely<Database>, uidDomain: string, group: GroupRow) {
  return (await detailedGroupViews(db, uidDomain, [group]))[0]!;
}

/** A group's privileges as `{privileges: [{type, name, allowed, revokable, subject}]}`. */
export async function privilegesView(
  db: Kysely<Database>,
  uidDomain: string,
  rows: { subject_id: string; privilege: string }[],
) {
  const subjects = await subjectsFor(
    db,
    uidDomain,
    rows.map((row) => row.subject_id),
  );
  return {
    privileges: rows.map((row) => ({
      type: 'access',
      name: row.privilege,
      allowed: true,
      revokable: true,
      subject: subjects.get(row.subject_id)!,
    })),
  };
}

/** One item's outcome in a group response (`results[]`). */
export interface ResultView {
  success: boolean;
  subject_id: string;
  subject_name?: string;
  reason?: string;
}
