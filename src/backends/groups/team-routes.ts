// Teams (routes.md §22): groups named `<owner>:<name>` with members and privileges, listed,
// made, renamed and deleted by their admins; members added (each told, `added_to_team`) and
// removed; privileges read and set; joined (with the public `optin`), left, and asked to join
// (the first admin told, `team_join_request`; a denial tells the requester, `team_join_denial`).
import { gatewayError } from '../../common/errors.ts';
import {
  createGroup,
  deleteGroup,
  dropJoinRequest,
  effectivePrivileges,
  everyone,
  grant,
  isMember,
  listGroups,
  membersOf,
  privilegeNames,
  privilegesOf,
  recordJoinRequest,
  requireGroup,
  revoke,
  updateGroup,
  type GroupRow,
} from './group-store.ts';
import {
  detailedGroupView,
  detailedGroupViews,
  groupView,
  privilegesView,
  shortName,
  subjectsFor,
} from './group-views.ts';
import {
  addSubjects,
  membersView,
  seenUsers,
  removeSubjects,
  type GroupRoutes,
  type GroupsContext,
} from './context.ts';
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

/** Privileges from a body field: a list of known privilege names. */
function privilegeList(value: unknown, field: string): string[] {
  if (value === undefined || value === null) return [];
  if (
    !Array.isArray(value) ||
    !value.every((item) => (privilegeNames as readonly unknown[]).includes(item))
  )
    throw gatewayError(
      'ERR_BAD_OR_MISSING_FIELD',
      `"${field}" must be a list of privileges (${privilegeNames.join(', ')})`,
      { field },
    );
  return [...new Set(value as string[])];
}

/** Members see a team; so does anyone holding (or given publicly) a privilege on it. */
async function canSee(context: GroupsContext, team: GroupRow, caller: string): Promise<boolean> {
  const held = await effectivePrivileges(context.db, team.id, caller);
  return held.size > 0 || (await isMember(context.db, team.id, caller));
}

async function requireVisible(context: GroupsContext, name: string, caller: string) {
  const team = await requireGroup(context.db, 'team', name);
  if (!(await canSee(context, team, caller)))
    throw gatewayError('ERR_NOT_FOUND', `team not found: ${name}`, { name });
  return team;
}

/** The team when the caller holds one of `needed` on it; 403 ERR_FORBIDDEN otherwise. */
async function requirePrivilege(
  context: GroupsContext,
  name: string,
  caller: string,
  needed: string[],
): Promise<GroupRow> {
  const team = await requireVisible(context, name, caller);
  const held = await effectivePrivileges(context.db, team.id, caller);
  if (!needed.some((privilege) => held.has(privilege)))
    throw gatewayError('ERR_FORBIDDEN', `${caller} may not do this to team ${name}`, {
      name,
      needs: needed,
    });
  return team;
}

export const teamRoutes: GroupRoutes = async (app, context) => {
  const { db, uidDomain, notify, now } = context;

  app.get('/teams', async (request) => {
    const caller = callerOf(request);
    const { query } = request;
    const teams = await listGroups(db, 'team', {
      search: queryString(query, 'search'),
      creator: queryString(query, 'creator'),
      member: queryString(query, 'member'),
      visibleTo: caller,
    });
    const details = flag(query, 'details');
    return {
      groups: details
        ? await detailedGroupViews(db, uidDomain, teams)
        : teams.map((team) => groupView(team)),
    };
  });

  app.post('/teams', async (request) => {
    const caller = callerOf(request);
    const body = bodyOf(request.body);
    const name = groupNameField(body.name);
    const team = await createGroup(
      db,
      {
        kind: 'team',
        name: `${caller}:${name}`,
        description: optionalString(body, 'description') ?? '',
        creator: caller,
      },
      [
        { subject: caller, privileges: ['admin'] },
        {
          subject: everyone,
          privileges: privilegeList(body.public_privileges, 'public_privileges'),
        },
      ],
      [caller],
      now(),
    );
    return detailedGroupView(db, uidDomain, team);
  });

  app.get<{ Params: Params }>('/teams/:name', async (request) => {
    const team = await requireVisible(context, request.params.name, callerOf(request));
    return detailedGroupView(db, uidDomain, team);
  });

  app.patch<{ Params: Params }>('/teams/:name', async (request) => {
    const caller = callerOf(request);
    const team = await requirePrivilege(context, request.params.name, caller, ['admin']);
    const body = bodyOf(request.body);
    const newName = body.name === undefined ? undefined : groupNameField(body.name);
    const owner = team.name.slice(0, team.name.indexOf(':'));
    const updated = await updateGroup(
      db,
      team,
      {
        ...(newName !== undefined ? { name: `${owner}:${newName}` } : {}),
        ...(body.description !== undefined
          ? { description: optionalString(body, 'description') ?? '' }
          : {}),
      },
      now(),
    );
    return detailedGroupView(db, uidDomain, updated);
  });

  app.delete<{ Params: Params }>('/teams/:name', async (request) => {
    const team = await requirePrivilege(context, request.params.name, callerOf(request), ['admin']);
    await deleteGroup(db, team);
    return groupView(team);
  });

  app.get<{ Params: Params }>('/teams/:name/members', async (request) => {
    const team = await requireVisible(context, request.params.name, callerOf(request));
    return membersView(context, await membersOf(db, team.id));
  });

  app.post<{ Params: Params }>('/teams/:name/members', async (request) => {
    const caller = callerOf(request);
    const team = await requirePrivilege(context, request.params.name, caller, ['admin', 'update']);
    const { results, added } = await addSubjects(
      context,
      team.id,
      subjectList(bodyOf(request.body)),
    );
    for (const member of added)
      await notify({
        type: 'team',
        user: member,
        subject: `${caller} added you to team ${shortName(team)}`,
        payload: { action: 'added_to_team', email_template: 'added_to_team', team_name: team.name },
      });
    return { results };
  });

  app.post<{ Params: Params }>('/teams/:name/members/deleter', async (request) => {
    const caller = callerOf(request);
    const team = await requirePrivilege(context, request.params.name, caller, ['admin', 'update']);
    return {
      results: (await removeSubjects(context, team.id, subjectList(bodyOf(request.body)))).results,
    };
  });

  app.get<{ Params: Params }>('/teams/:name/privileges', async (request) => {
    const team = await requireVisible(context, request.params.name, callerOf(request));
    return privilegesView(db, uidDomain, await privilegesOf(db, team.id));
  });

  // Each update replaces what its subject holds; `GrouperAll` sets the public privileges.
  app.post<{ Params: Params }>('/teams/:name/privileges', async (request) => {
    const caller = callerOf(request);
    const team = await requirePrivilege(context, request.params.name, caller, ['admin']);
    const updates = bodyOf(request.body).updates;
    if (!Array.isArray(updates))
      throw gatewayError('ERR_BAD_OR_MISSING_FIELD', '"updates" must be a list', {
        field: 'updates',
      });
    const seen = await seenUsers(
      context,
      updates.flatMap((update) =>
        typeof update?.subject_id === 'string' ? [update.subject_id as string] : [],
      ),
    );
    const parsed = updates.map((update, index) => {
      const item = bodyOf(update);
      if (typeof item.subject_id !== 'string' || item.subject_id === '')
        throw gatewayError(
          'ERR_BAD_OR_MISSING_FIELD',
          `"updates[${index}].subject_id" is required`,
          {
            field: `updates[${index}].subject_id`,
          },
        );
      if (item.subject_id !== everyone && !seen.has(item.subject_id))
        throw gatewayError('ERR_NOT_FOUND', `subject not found: ${item.subject_id}`, {
          subject: item.subject_id,
        });
      return {
        subject: item.subject_id,
        privileges: privilegeList(item.privileges, `updates[${index}].privileges`),
      };
    });
    await db.transaction().execute(async (trx) => {
      for (const { subject, privileges } of parsed) {
        await revoke(trx, team.id, [subject]);
        await grant(trx, team.id, [{ subject, privileges }], now());
      }
    });
    return privilegesView(db, uidDomain, await privilegesOf(db, team.id));
  });

  app.post<{ Params: Params }>('/teams/:name/join', async (request) => {
    const caller = callerOf(request);
    const team = await requirePrivilege(context, request.params.name, caller, ['optin', 'admin']);
    const { results } = await addSubjects(context, team.id, [caller]);
    await grant(db, team.id, [{ subject: caller, privileges: ['view', 'optout'] }], now());
    return { results };
  });

  app.post<{ Params: Params }>('/teams/:name/leave', async (request) => {
    const caller = callerOf(request);
    const team = await requireVisible(context, request.params.name, caller);
    return { results: (await removeSubjects(context, team.id, [caller])).results };
  });

  app.post<{ Params: Params }>('/teams/:name/join-request', async (request) => {
    const caller = callerOf(request);
    const team = await requireVisible(context, request.params.name, caller);
    if (await isMember(db, team.id, caller))
      throw gatewayError('ERR_ILLEGAL_ARGUMENT', `${caller} is already a member of ${team.name}`, {
        name: team.name,
      });
    const message = optionalString(bodyOf(request.body), 'message') ?? '';
    const admin = (await privilegesOf(db, team.id)).find(
      (row) => row.privilege === 'admin' && row.subject_id !== everyone,
    );
    if (!admin)
      throw gatewayError('ERR_NOT_FOUND', `team ${team.name} has no administrator to ask`, {
        name: team.name,
      });
    await recordJoinRequest(db, team.id, caller, message, now());
    const requester = (await subjectsFor(db, uidDomain, [caller])).get(caller)!;
    await notify({
      type: 'team',
      user: admin.subject_id,
      subject: `${requester.name} asks to join team ${shortName(team)}`,
      message: message || undefined,
      payload: {
        action: 'team_join_request',
        email_template: 'team_join_request',
        team_name: team.name,
        requester_id: caller,
        requester_name: requester.name,
        requester_email: requester.email,
        requester_message: message,
      },
    });
    return {};
  });

  app.post<{ Params: Params & { requester: string } }>(
    '/teams/:name/join-request/:requester/deny',
    async (request) => {
      const caller = callerOf(request);
      const team = await requirePrivilege(context, request.params.name, caller, ['admin']);
      const { requester } = request.params;
      const message = optionalString(bodyOf(request.body), 'message') ?? '';
      if (!(await dropJoinRequest(db, team.id, requester)))
        throw gatewayError('ERR_NOT_FOUND', `${requester} has not asked to join ${team.name}`, {
          name: team.name,
          requester,
        });
      await notify({
        type: 'team',
        user: requester,
        subject: `Your request to join team ${shortName(team)} was denied`,
        message: message || undefined,
        payload: {
          action: 'team_join_denial',
          email_template: 'team_join_denial',
          team_name: team.name,
          admin_message: message,
        },
      });
      return {};
    },
  );
};
