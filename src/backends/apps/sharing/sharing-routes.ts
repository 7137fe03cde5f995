// Sharing apps, analyses and tools (docs/api/sharing.md): `sharing`, `unsharing` and
// `permission-lister` of each kind, and the administrators' app sharing. Grants are kept by the
// permissions service; a subject is a user or a team or collaborator list (the groups service
// resolves it). Each item reports its own outcome; the sharer and every grantee are told.
import type { FastifyPluginAsync } from 'fastify';
import type { Kysely } from 'kysely';
import { Type, type TSchema } from 'typebox';
import type { Database } from '../../../store/schema.ts';
import { asBoolean } from '../../../store/sqlite-booleans.ts';
import { gatewayError, type ErrorCode } from '../../../common/errors.ts';
import type { UserNotification } from '../../../common/notifications.ts';
import { qualifiedUsername } from '../../../common/users.ts';
import { findSharingGroup, groupNames } from '../../groups/index.ts';
import {
  atLeast,
  grantsOn,
  isLevel,
  removeGrant,
  setGrant,
  type GrantSubject,
  type Level,
  type ResourceType,
} from '../../permissions/index.ts';
import { levelOf, sharedLevels, signedInUser } from '../shared/index.ts';

/** What a resource of one kind is to sharing: its owner, name, and whether everyone may read it. */
interface Resource {
  id: string;
  name: string;
  owner: string;
  isPublic: boolean;
}

/** One kind of shareable resource and how clients name its items. */
interface Kind {
  type: ResourceType;
  /** The list key in bodies and answers: `apps`, `analyses`, `tools`. */
  items: 'apps' | 'analyses' | 'tools';
  /** The notification type grantees get. */
  notification: string;
  /** Singular and plural nouns for notification subjects. */
  noun: [string, string];
  /** How an item names its resource in a body (an object, or a bare id for some unsharing lists). */
  idOf(item: unknown): string;
  /** The item's identifying fields as answers echo them, with the resource's name. */
  echo(id: string, name: string | undefined, item: unknown): Record<string, unknown>;
  load(db: Kysely<Database>, ids: string[]): Promise<Map<string, Resource>>;
  /** The permission lister's entry for a resource, before `permissions`. */
  listed(resource: Resource, item: unknown): Record<string, unknown>;
  sharingItem: TSchema;
  unsharingItem: TSchema;
  listerItem: TSchema;
}

const Id = Type.String({ minLength: 1, maxLength: 64 });
const Level_ = Type.String({ minLength: 1, maxLength: 16 });
const SubjectIn = Type.Object(
  { id: Type.String({ minLength: 1, maxLength: 512 }), source_id: Type.Optional(Type.String()) },
  { additionalProperties: true },
);
interface SubjectInput {
  id: string;
  source_id?: string;
}
/** One subject's entry of a sharing or unsharing body: `{subject, apps | analyses | tools}`. */
type Entry = { subject: SubjectInput } & Record<string, unknown[]>;
type Action = 'share' | 'unshare';

const appKey = (item: unknown) => item as { system_id: string; app_id: string };

const apps: Kind = {
  type: 'app',
  items: 'apps',
  notification: 'apps',
  noun: ['app', 'apps'],
  idOf: (item) => appKey(item).app_id.toLowerCase(),
  echo: (_id, name, item) => ({
    system_id: appKey(item).system_id,
    app_id: appKey(item).app_id,
    ...(name !== undefined ? { app_name: name } : {}),
  }),
  async load(db, ids) {
    const rows = await db
      .selectFrom('apps')
      .select(['id', 'name', 'integrator', 'is_public'])
      .where('id', 'in', ids)
      .where('system_id', '=', 'de')
      .where('deleted', '=', false)
      .execute();
    return new Map(
      rows.map((row) => [
        row.id,
        { id: row.id, name: row.name, owner: row.integrator, isPublic: asBoolean(row.is_public) },
      ]),
    );
  },
  listed: (resource, item) => ({
    system_id: appKey(item).system_id,
    app_id: resource.id,
    name: resource.name,
  }),
  sharingItem: Type.Object({ system_id: Id, app_id: Id, permission: Level_ }),
  unsharingItem: Type.Object({ system_id: Id, app_id: Id }),
  listerItem: Type.Object({ system_id: Id, app_id: Id }),
};

/** Analyses and tools name their items by one id field (`analysis_id`, `tool_id`) or a bare id. */
function singleIdKind(
  type: 'analysis' | 'tool',
  items: 'analyses' | 'tools',
  notification: string,
  noun: [string, string],
  load: Kind['load'],
): Kind {
  const field = `${type}_id`;
  const idOf = (item: unknown) =>
    (typeof item === 'string' ? item : (item as Record<string, string>)[field]!).toLowerCase();
  return {
    type,
    items,
    notification,
    noun,
    idOf,
    echo: (id, name) => ({
      [field]: id,
      ...(name !== undefined ? { [`${type}_name`]: name } : {}),
    }),
    load,
    listed: (resource) => ({ id: resource.id, name: resource.name }),
    sharingItem: Type.Object({ [field]: Id, permission: Level_ }),
    unsharingItem: Type.Union([Id, Type.Object({ [field]: Id })]),
    listerItem: Id,
  };
}

const analyses = singleIdKind(
  'analysis',
  'analyses',
  'analysis',
  ['analysis', 'analyses'],
  async (db, ids) => {
    const rows = await db
      .selectFrom('analyses')
      .select(['id', 'name', 'username'])
      .where('id', 'in', ids)
      .where('deleted', '=', false)
      .execute();
    return new Map(
      rows.map((row) => [
        row.id,
        { id: row.id, name: row.name, owner: row.username, isPublic: false },
      ]),
    );
  },
);

const tools = singleIdKind('tool', 'tools', 'tool', ['tool', 'tools'], async (db, ids) => {
  const rows = await db
    .selectFrom('tools')
    .select(['id', 'name', 'integrator', 'is_public'])
    .where('id', 'in', ids)
    .execute();
  return new Map(
    rows.map((row) => [
      row.id,
      { id: row.id, name: row.name, owner: row.integrator, isPublic: asBoolean(row.is_public) },
    ]),
  );
});

/**
 * The items `ids` name, loaded once each. No id loads nothing, without a query: `in ()` is
 * PostgreSQL's syntax error (SQLite reads it as an empty list).
 */
async function loadAll(kind: Kind, db: Parameters<Kind['load']>[0], ids: string[]) {
  return ids.length === 0 ? new Map() : kind.load(db, [...new Set(ids)]);
}

/** Most items one request may name, over all its subjects. */
const maxItems = 1000;

interface ItemError {
  error_code: ErrorCode;
  reason: string;
}
const failure = (code: ErrorCode, reason: string): ItemError => ({ error_code: code, reason });

/** A subject resolved: whom the grant is to, and who hears of it. */
interface Grantee {
  grant: GrantSubject;
  /** The subject as listings show it. */
  view: Record<string, unknown>;
  /** Its display name in notifications. */
  name: string;
  /** Short usernames of the people it reaches. */
  people: string[];
}

export const sharingRoutes: FastifyPluginAsync<{
  db: Kysely<Database>;
  uidDomain: string;
  notify: (notification: UserNotification) => Promise<boolean>;
  now: () => number;
}> = async (app, { db, uidDomain, notify, now }) => {
  const shortOf = (name: string) => {
    const suffix = `@${uidDomain}`;
    return name.endsWith(suffix) ? name.slice(0, -suffix.length) : name;
  };

  /** The grantee a client's subject names, or why it cannot be one. */
  const resolve = async (subject: SubjectInput): Promise<Grantee | ItemError> => {
    if (subject.source_id?.startsWith('g:')) {
      const group = await findSharingGroup(db, subject.id);
      if (!group) return failure('ERR_NOT_FOUND', `no team or collaborator list ${subject.id}`);
      return {
        grant: { type: 'group', id: group.id },
        view: { id: group.id, source_id: 'g:gsa', name: group.name },
        name: group.name,
        people: group.members,
      };
    }
    const user = shortOf(subject.id);
    const seen = await db
      .selectFrom('users')
      .select('username')
      .where('username', '=', qualifiedUsername(user, uidDomain))
      .executeTakeFirst();
    if (!seen) return failure('ERR_NOT_FOUND', `no user ${subject.id}`);
    return {
      grant: { type: 'user', id: user },
      view: { id: user, source_id: 'platform' },
      name: user,
      people: [user],
    };
  };

  /** The sharer and each person reached hear of what changed (as data sharing tells them). */
  const tell = (
    kind: Kind,
    action: Action,
    sharer: string,
    grantee: Grantee,
    items: { name?: string; outcome: Record<string, unknown> }[],
  ) => {
    if (items.length === 0) return;
    const what =
      items.length === 1
        ? `${kind.noun[0]} ${items[0]!.name ?? ''}`.trim()
        : `${items.length} ${kind.noun[1]}`;
    const payload = {
      action,
      sharer,
      sharee: grantee.name,
      [kind.items]: items.map((item) => item.outcome),
    };
    const told = [
      {
        user: sharer,
        subject:
          action === 'share'
            ? `${what} shared with ${grantee.name}`
            : `${what} no longer shared with ${grantee.name}`,
      },
      ...grantee.people
        .filter((person) => person !== sharer)
        .map((person) => ({
          user: person,
          subject:
            action === 'share'
              ? `${sharer} shared ${what} with you`
              : `${sharer} stopped sharing ${what} with you`,
        })),
    ];
    for (const { user, subject } of told)
      void notify({ type: kind.notification, user, subject, payload }).catch(() => false);
  };

  /** The caller's level on each resource (administrators act as owners of every one). */
  const levelsFor = async (
    kind: Kind,
    user: string,
    resources: Map<string, Resource>,
    asAdmin: boolean,
  ): Promise<Map<string, Level | undefined>> => {
    const others = [...resources.values()].filter((resource) => resource.owner !== user);
    const granted = asAdmin
      ? new Map<string, Level>()
      : await sharedLevels(
          db,
          kind.type,
          others.map((resource) => resource.id),
          user,
        );
    return new Map(
      [...resources.values()].map((resource) => [
        resource.id,
        asAdmin
          ? 'own'
          : levelOf(resource.owner, user, granted.get(resource.id), resource.isPublic),
      ]),
    );
  };

  const countItems = (entries: { [key: string]: unknown[] }[], key: string) => {
    const total = entries.reduce((sum, entry) => sum + (entry[key]?.length ?? 0), 0);
    if (total > maxItems)
      throw gatewayError('ERR_BAD_OR_MISSING_FIELD', `at most ${maxItems} items per request`, {
        field: key,
      });
  };

  /** Why the caller may not change an item's grants, if they may not. */
  const refusal = (
    kind: Kind,
    id: string,
    resource: Resource | undefined,
    level: Level | undefined,
  ): ItemError | undefined => {
    if (!resource || !level) return failure('ERR_NOT_FOUND', `no ${kind.noun[0]} ${id}`);
    if (!atLeast(level, 'own'))
      return failure('ERR_NOT_OWNER', `only the owner shares ${kind.noun[0]} ${id}`);
    return undefined;
  };

  /** Why a grant of `permission` to the grantee cannot be made, if it cannot. */
  const grantRefusal = (
    kind: Kind,
    id: string,
    permission: string,
    grantee: Grantee,
    resource: Resource,
  ): ItemError | undefined => {
    if (!isLevel(permission))
      return failure(
        'ERR_BAD_OR_MISSING_FIELD',
        `permission must be read, write or own, not ${permission}`,
      );
    if (grantee.grant.type === 'user' && grantee.grant.id === resource.owner)
      return failure('ERR_ILLEGAL_ARGUMENT', `${grantee.name} owns ${kind.noun[0]} ${id}`);
    return undefined;
  };

  /**
   * `POST .../sharing` or `.../unsharing` of a kind: each subject's items judged one by one, the
   * grants that may change changed, and the sharer and grantees told of what did.
   */
  const changeRoute = (kind: Kind, prefix: string, asAdmin: boolean, action: Action) => {
    const listKey = action === 'share' ? 'sharing' : 'unsharing';
    const item = action === 'share' ? kind.sharingItem : kind.unsharingItem;
    app.post(
      `${prefix}/${kind.items}/${listKey}`,
      {
        schema: {
          body: Type.Object({
            [listKey]: Type.Array(
              Type.Object(
                { subject: SubjectIn, [kind.items]: Type.Array(item) },
                { additionalProperties: true },
              ),
            ),
          }),
        },
      },
      async (request) => {
        const sharer = signedInUser(request.query, action);
        const entries = (request.body as Record<string, Entry[]>)[listKey]!;
        countItems(entries, kind.items);
        const ids = entries.flatMap((entry) => entry[kind.items]!.map(kind.idOf));
        const resources = await loadAll(kind, db, ids);
        const levels = await levelsFor(kind, sharer, resources, asAdmin);
        const answer = [];
        for (const entry of entries) {
          const grantee = await resolve(entry.subject);
          const done: { name?: string; outcome: Record<string, unknown> }[] = [];
          const outcomes = [];
          for (const raw of entry[kind.items]!) {
            const id = kind.idOf(raw);
            const resource = resources.get(id);
            const permission =
              action === 'share' ? (raw as { permission: string }).permission : undefined;
            const echo = {
              ...kind.echo(id, resource?.name, raw),
              ...(permission !== undefined ? { permission } : {}),
            };
            const refused =
              refusal(kind, id, resource, levels.get(id)) ??
              ('error_code' in grantee ? grantee : undefined) ??
              (permission !== undefined
                ? grantRefusal(kind, id, permission, grantee as Grantee, resource!)
                : undefined);
            if (refused) {
              outcomes.push({ ...echo, success: false, error: refused });
              continue;
            }
            const { grant } = grantee as Grantee;
            let changed = true;
            if (permission !== undefined)
              await setGrant(db, kind.type, id, grant, permission as Level, now());
            // Nothing to take away is not a failure: the subject ends without a grant either way.
            else changed = await removeGrant(db, kind.type, id, grant);
            if (changed) done.push({ name: resource!.name, outcome: echo });
            outcomes.push({ ...echo, success: true });
          }
          if (!('error_code' in grantee)) tell(kind, action, sharer, grantee, done);
          answer.push({ subject: entry.subject, [kind.items]: outcomes });
        }
        return { [listKey]: answer };
      },
    );
  };

  const lister = (kind: Kind) =>
    app.post(
      `/${kind.items}/permission-lister`,
      {
        schema: {
          body: Type.Object(
            { [kind.items]: Type.Array(kind.listerItem, { maxItems }) },
            { additionalProperties: true },
          ),
        },
      },
      async (request) => {
        const user = signedInUser(request.query, 'list permissions');
        const fullListing = (request.query as Record<string, unknown>)['full-listing'] === 'true';
        const items = (request.body as Record<string, unknown[]>)[kind.items]!;
        const ids = items.map(kind.idOf);
        const resources = await loadAll(kind, db, ids);
        const levels = await levelsFor(kind, user, resources, false);
        const missing = ids.filter((id) => !levels.get(id));
        if (missing.length > 0)
          throw gatewayError('ERR_NOT_FOUND', `no ${kind.noun[0]} ${missing.join(', ')}`, {
            ids: missing,
          });
        const grants = await grantsOn(db, kind.type, [...resources.keys()]);
        const names = await groupNames(
          db,
          grants.filter((grant) => grant.subject.type === 'group').map((grant) => grant.subject.id),
        );
        const subjectView = (subject: GrantSubject) =>
          subject.type === 'group'
            ? { id: subject.id, source_id: 'g:gsa', name: names.get(subject.id) ?? subject.id }
            : { id: subject.id, source_id: 'platform' };
        return {
          [kind.items]: items.map((item, index) => {
            const resource = resources.get(ids[index]!)!;
            const owns = levels.get(resource.id) === 'own';
            const permissions = grants
              .filter((grant) => grant.resourceId === resource.id)
              // Someone who does not own it sees only their own grant.
              .filter(
                (grant) => owns || (grant.subject.type === 'user' && grant.subject.id === user),
              )
              .map((grant) => ({ subject: subjectView(grant.subject), permission: grant.level }));
            const owner =
              fullListing && owns
                ? [
                    {
                      subject: subjectView({ type: 'user', id: resource.owner }),
                      permission: 'own',
                    },
                  ]
                : [];
            return { ...kind.listed(resource, item), permissions: [...owner, ...permissions] };
          }),
        };
      },
    );

  for (const kind of [apps, analyses, tools]) {
    changeRoute(kind, '', false, 'share');
    changeRoute(kind, '', false, 'unshare');
    lister(kind);
  }
  changeRoute(apps, '/admin', true, 'share');
  changeRoute(apps, '/admin', true, 'unshare');
};
