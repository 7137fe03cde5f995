// Communities (routes.md §22): groups anyone may see and join (made with the public `read` and
// `optin`), run by their admins: renamed (the apps tagged with the old name re-tagged through the
// metadata service's AVU store on `retag-apps=true`), deleted, admins added (each told) and removed.
// Mounted twice: for users under `/communities`, and for the gateway's `/admin/communities...`
// routes (administrators only, checked by the gateway) under `/admin`, acting as the groups
// administrator, whom no admin privilege check stops.
import { gatewayError } from '../../common/errors.ts';
import { communityAvuAttribute } from '../../common/app-community-avus.ts';
import { renameAvuValues, targetIdsWithAvu } from '../metadata/index.ts';
import {
  createGroup,
  deleteGroup,
  effectivePrivileges,
  everyone,
  grant,
  listGroups,
  membersOf,
  privilegesOf,
  requireGroup,
  revoke,
  updateGroup,
  type GroupRow,
} from './group-store.ts';
import {
  detailedGroupView,
  detailedGroupViews,
  groupView,
  type ResultView,
} from './group-views.ts';
import {
  addSubjects,
  membersView,
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

export const communityRoutes =
  (asGroupsAdmin: boolean): GroupRoutes =>
  async (app, context: GroupsContext) => {
    const { db, uidDomain, notify, now } = context;

    /** The community when the caller administers it (always, as the groups administrator). */
    const administered = async (name: string, caller: string): Promise<GroupRow> => {
      const community = await requireGroup(db, 'community', name);
      if (asGroupsAdmin) return community;
      const held = await effectivePrivileges(db, community.id, caller);
      if (!held.has('admin'))
        throw gatewayError('ERR_FORBIDDEN', `${caller} does not administer community ${name}`, {
          name,
        });
      return community;
    };

    const adminsOf = async (community: GroupRow): Promise<string[]> =>
      (await privilegesOf(db, community.id))
        .filter((row) => row.privilege === 'admin' && row.subject_id !== everyone)
        .map((row) => row.subject_id);

    app.get('/communities', async (request) => {
      callerOf(request);
      const communities = await listGroups(db, 'community', {
        member: queryString(request.query, 'member'),
        search: queryString(request.query, 'search'),
        creator: queryString(request.query, 'creator'),
      });
      const details = flag(request.query, 'details');
      return {
        groups: details
          ? await detailedGroupViews(db, uidDomain, communities)
          : communities.map((community) => groupView(community)),
      };
    });

    app.post('/communities', async (request) => {
      const caller = callerOf(request);
      const body = bodyOf(request.body);
      const community = await createGroup(
        db,
        {
          kind: 'community',
          name: groupNameField(body.name),
          description: optionalString(body, 'description') ?? '',
          creator: caller,
        },
        [
          { subject: caller, privileges: ['admin'] },
          { subject: everyone, privileges: ['read', 'optin'] },
        ],
        [caller],
        now(),
      );
      return detailedGroupView(db, uidDomain, community);
    });

    app.get<{ Params: Params }>('/communities/:name', async (request) => {
      callerOf(request);
      return detailedGroupView(
        db,
        uidDomain,
        await requireGroup(db, 'community', request.params.name),
      );
    });

    // A rename leaves apps tagged with the old name behind unless `retag-apps` moves their tags;
    // with tagged apps it is refused unless one of `retag-apps` and `force-rename` is given.
    app.patch<{ Params: Params }>('/communities/:name', async (request) => {
      const caller = callerOf(request);
      const retag = flag(request.query, 'retag-apps');
      const force = flag(request.query, 'force-rename');
      const community = await administered(request.params.name, caller);
      const body = bodyOf(request.body);
      const newName = body.name === undefined ? undefined : groupNameField(body.name);
      const renamed = newName !== undefined && newName !== community.name;
      const tag = { targetType: 'app' as const, attribute: communityAvuAttribute };
      if (renamed && !retag && !force) {
        const tagged = await targetIdsWithAvu(db, { ...tag, value: community.name });
        if (tagged.length > 0)
          throw gatewayError(
            'ERR_ILLEGAL_ARGUMENT',
            `${tagged.length} app(s) are tagged with community ${community.name}: rename with retag-apps=true to re-tag them, or force-rename=true to leave them`,
            { name: community.name, apps: tagged },
          );
      }
      const updated = await updateGroup(
        db,
        community,
        {
          ...(renamed ? { name: newName } : {}),
          ...(body.description !== undefined
            ? { description: optionalString(body, 'description') ?? '' }
            : {}),
        },
        now(),
      );
      if (renamed && retag)
        await renameAvuValues(db, { ...tag, from: community.name, to: newName }, caller, now());
      return detailedGroupView(db, uidDomain, updated);
    });

    app.delete<{ Params: Params }>('/communities/:name', async (request) => {
      const community = await administered(request.params.name, callerOf(request));
      await deleteGroup(db, community);
      return groupView(community);
    });

    app.get<{ Params: Params }>('/communities/:name/admins', async (request) => {
      callerOf(request);
      const community = await requireGroup(db, 'community', request.params.name);
      return membersView(context, await adminsOf(community));
    });

    // New admins become members too, and are told.
    app.post<{ Params: Params }>('/communities/:name/admins', async (request) => {
      const caller = callerOf(request);
      const community = await administered(request.params.name, caller);
      const subjects = subjectList(bodyOf(request.body));
      const before = new Set(await adminsOf(community));
      const { results } = await addSubjects(context, community.id, subjects);
      const granted = results.filter((result) => result.success).map((result) => result.subject_id);
      await grant(
        db,
        community.id,
        [...granted.map((subject) => ({ subject, privileges: ['admin'] }))],
        now(),
      );
      for (const admin of granted.filter((subject) => !before.has(subject)))
        await notify({
          type: 'community',
          user: admin,
          subject: `${caller} made you an administrator of community ${community.name}`,
          payload: {
            action: 'added_to_community_admins',
            email_template: 'added_to_community_admins',
            community_name: community.name,
          },
        });
      return { results };
    });

    // Admins removed stay members; the last admin cannot go.
    app.post<{ Params: Params }>('/communities/:name/admins/deleter', async (request) => {
      const community = await administered(request.params.name, callerOf(request));
      const subjects = subjectList(bodyOf(request.body));
      const admins = new Set(await adminsOf(community));
      const results: ResultView[] = [];
      for (const subject of subjects) {
        if (!admins.has(subject)) {
          results.push({ success: false, subject_id: subject, reason: 'not an administrator' });
        } else if (admins.size === 1) {
          results.push({ success: false, subject_id: subject, reason: 'the last administrator' });
        } else {
          await revoke(db, community.id, [subject], ['admin']);
          admins.delete(subject);
          results.push({ success: true, subject_id: subject });
        }
      }
      return { results };
    });

    if (asGroupsAdmin) return;

    app.get<{ Params: Params }>('/communities/:name/members', async (request) => {
      callerOf(request);
      const community = await requireGroup(db, 'community', request.params.name);
      return membersView(context, await membersOf(db, community.id));
    });

    app.post<{ Params: Params }>('/communities/:name/join', async (request) => {
      const caller = callerOf(request);
      const community = await requireGroup(db, 'community', request.params.name);
      const held = await effectivePrivileges(db, community.id, caller);
      if (!held.has('optin') && !held.has('admin'))
        throw gatewayError('ERR_FORBIDDEN', `community ${community.name} may not be joined`, {
          name: community.name,
        });
      return { results: (await addSubjects(context, community.id, [caller])).results };
    });

    // An admin who leaves gives up administering it; the last admin cannot leave.
    app.post<{ Params: Params }>('/communities/:name/leave', async (request) => {
      const caller = callerOf(request);
      const community = await requireGroup(db, 'community', request.params.name);
      return { results: (await removeSubjects(context, community.id, [caller])).results };
    });
  };
