// Collaborator lists (routes.md §22): each user's own named groups of people (`<owner>:<name>`
// inside), listed, made, renamed and deleted, with members added and removed. The list `default`
// is made on first use, as the web UI uses it without ever creating it. `retain-permissions=true`
// on a delete keeps what was shared with the list for its members (list-permission-retention.ts).
import {
  createGroup,
  deleteGroup,
  findGroup,
  listGroups,
  membersOf,
  requireGroup,
  updateGroup,
  type GroupRow,
} from './group-store.ts';
import { detailedGroupView, detailedGroupViews, groupView, shortName } from './group-views.ts';
import { addSubjects, membersView, removeSubjects, type GroupRoutes } from './context.ts';
import { copyListPermissionsToMembers } from './list-permission-retention.ts';
import {
  bodyOf,
  callerOf,
  flag,
  groupNameField,
  optionalString,
  queryString,
  subjectList,
} from './requests.ts';

type Params = { name: string };

/** The list clients use without creating it. */
const defaultList = 'default';

export const collaboratorListRoutes: GroupRoutes = async (app, context) => {
  const { db, uidDomain, now } = context;
  const fullName = (owner: string, name: string) => `${owner}:${name}`;

  /** The caller's list; `default` is made when missing, any other missing name is 404. */
  const listOf = async (owner: string, name: string): Promise<GroupRow> => {
    if (name === defaultList) {
      const existing = await findGroup(db, 'collaborator-list', fullName(owner, name));
      if (existing) return existing;
      try {
        return await createGroup(
          db,
          {
            kind: 'collaborator-list',
            name: fullName(owner, name),
            description: 'Default collaborator list',
            creator: owner,
          },
          [{ subject: owner, privileges: ['admin'] }],
          [],
          now(),
        );
      } catch {
        // Made by a concurrent first use.
        return requireGroup(db, 'collaborator-list', fullName(owner, name));
      }
    }
    return requireGroup(db, 'collaborator-list', fullName(owner, name));
  };

  app.get('/collaborator-lists', async (request) => {
    const caller = callerOf(request);
    const lists = await listGroups(db, 'collaborator-list', { creator: caller });
    const search = queryString(request.query, 'search')?.toLowerCase();
    const details = flag(request.query, 'details');
    const found = lists.filter(
      (list) => search === undefined || shortName(list).toLowerCase().includes(search),
    );
    return {
      groups: details
        ? await detailedGroupViews(db, uidDomain, found)
        : found.map((list) => groupView(list)),
    };
  });

  app.post('/collaborator-lists', async (request) => {
    const caller = callerOf(request);
    const body = bodyOf(request.body);
    const name = groupNameField(body.name);
    const list = await createGroup(
      db,
      {
        kind: 'collaborator-list',
        name: fullName(caller, name),
        description: optionalString(body, 'description') ?? '',
        creator: caller,
      },
      [{ subject: caller, privileges: ['admin'] }],
      [],
      now(),
    );
    return detailedGroupView(db, uidDomain, list);
  });

  app.get<{ Params: Params }>('/collaborator-lists/:name', async (request) => {
    return detailedGroupView(db, uidDomain, await listOf(callerOf(request), request.params.name));
  });

  app.patch<{ Params: Params }>('/collaborator-lists/:name', async (request) => {
    const caller = callerOf(request);
    const list = await listOf(caller, request.params.name);
    const body = bodyOf(request.body);
    const newName = body.name === undefined ? undefined : groupNameField(body.name);
    const updated = await updateGroup(
      db,
      list,
      {
        ...(newName !== undefined ? { name: fullName(caller, newName) } : {}),
        ...(body.description !== undefined
          ? { description: optionalString(body, 'description') ?? '' }
          : {}),
      },
      now(),
    );
    return detailedGroupView(db, uidDomain, updated);
  });

  app.delete<{ Params: Params }>('/collaborator-lists/:name', async (request) => {
    const caller = callerOf(request);
    const retain = flag(request.query, 'retain-permissions');
    const list = await requireGroup(db, 'collaborator-list', fullName(caller, request.params.name));
    if (retain) await copyListPermissionsToMembers(db, list, await membersOf(db, list.id), now());
    await deleteGroup(db, list);
    return groupView(list);
  });

  app.get<{ Params: Params }>('/collaborator-lists/:name/members', async (request) => {
    const list = await listOf(callerOf(request), request.params.name);
    return membersView(context, await membersOf(db, list.id));
  });

  app.post<{ Params: Params }>('/collaborator-lists/:name/members', async (request) => {
    const list = await listOf(callerOf(request), request.params.name);
    const { results } = await addSubjects(context, list.id, subjectList(bodyOf(request.body)));
    return { results };
  });

  app.post<{ Params: Params }>('/collaborator-lists/:name/members/deleter', async (request) => {
    const caller = callerOf(request);
    const retain = flag(request.query, 'retain-permissions');
    const list = await listOf(caller, request.params.name);
    const subjects = subjectList(bodyOf(request.body));
    if (retain) {
      const current = new Set(await membersOf(db, list.id));
      await copyListPermissionsToMembers(
        db,
        list,
        subjects.filter((subject) => current.has(subject)),
        now(),
      );
    }
    return { results: (await removeSubjects(context, list.id, subjects)).results };
  });
};
