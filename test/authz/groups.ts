// The groups' part of the authorization matrix (docs/api/groups.md): a private team, a public team
// (anyone may see it and opt in), a collaborator list and a community of the owner's, and the
// routes on them. A team's privileges are its levels here: `admin` is own, `update` (changing its
// members) write, `view` and `read` read; its members hold `view`. A collaborator list is its
// owner's alone: the name in the path is looked up among the caller's own lists, so another caller
// never reaches it (404). A community is public (everyone reads it and may join); its admins own
// it. A group the caller cannot see is 404 ERR_NOT_FOUND; one they see without the privilege a
// change needs is 403 ERR_FORBIDDEN.
import type { Denial, Kind, Resource, Row } from './model.ts';
import { bystander, markerOf, type Call, type Platform } from './platform.ts';

const notFound: Denial = { status: 404, code: 'ERR_NOT_FOUND' };
const refused: Denial = { status: 403, code: 'ERR_FORBIDDEN' };
/** Leaving what one is not a member of: the item fails ("not a member"). */
const notAMember = { item: '*' };
const alreadyMember: Denial = { status: 400, code: 'ERR_ILLEGAL_ARGUMENT' };

const members = (path: string, names: string[]): Call => ({
  method: 'POST',
  url: `${path}/members`,
  json: { members: names },
});

async function makeTeam(platform: Platform, publicPrivileges: string[]): Promise<Resource> {
  const marker = markerOf('team');
  const team = await platform.ok('owner', {
    method: 'POST',
    url: '/teams',
    json: { name: marker, public_privileges: publicPrivileges },
  });
  const name = `owner:${marker}`;
  const path = `/teams/${encodeURIComponent(name)}`;
  await platform.ok('owner', members(path, ['teammate', bystander]));
  await platform.ok('owner', {
    method: 'POST',
    url: `${path}/privileges`,
    json: {
      updates: [
        { subject_id: 'reader', privileges: ['view', 'read'] },
        { subject_id: 'writer', privileges: ['view', 'update'] },
        { subject_id: 'coowner', privileges: ['admin'] },
      ],
    },
  });
  return { marker, id: team.id, name, path };
}

const teamReadBack = (team: Resource): Call[] => [
  { method: 'GET', url: team.path },
  { method: 'GET', url: `${team.path}/privileges` },
];

export const groupKinds: Record<string, Kind> = {
  team: {
    about:
      "a private team of the owner's: the teammate a member (view), the reader holding view and read, the writer update, the co-owner admin",
    grants: { reader: 'read', writer: 'write', coowner: 'own', teammate: 'read' },
    hidden: notFound,
    short: refused,
    make: (platform) => makeTeam(platform, []),
    readBack: teamReadBack,
  },
  'public team': {
    about: 'a team anyone may see and opt in to (public view and optin), else as the private one',
    grants: {
      reader: 'read',
      writer: 'write',
      coowner: 'own',
      teammate: 'read',
      stranger: 'read',
      admin: 'read',
    },
    hidden: notFound,
    short: refused,
    make: async (platform) => {
      const team = await makeTeam(platform, ['view', 'optin']);
      // Someone asks to join (the owner may deny it).
      await platform.ok('commoner', {
        method: 'POST',
        url: `${team.path}/join-request`,
        json: { message: 'may I?' },
      });
      return { ...team, requester: 'commoner' };
    },
    readBack: teamReadBack,
  },
  list: {
    about: "a collaborator list of the owner's, the listmate a member: the owner's alone",
    grants: {},
    also: ['listmate'],
    hidden: notFound,
    short: notFound,
    make: async (platform) => {
      const marker = markerOf('list');
      const list = await platform.ok('owner', {
        method: 'POST',
        url: '/collaborator-lists',
        json: { name: marker },
      });
      const path = `/collaborator-lists/${marker}`;
      await platform.ok('owner', members(path, ['listmate', bystander]));
      return { marker, id: list.id, name: marker, path };
    },
    readBack: (list) => [
      { method: 'GET', url: list.path },
      { method: 'GET', url: `${list.path}/members` },
    ],
  },
  community: {
    about:
      "a community of the owner's (public: everyone reads it), the co-owner a second admin, the commoner a member",
    grants: { coowner: 'own', commoner: 'read', stranger: 'read', admin: 'read' },
    hidden: notFound,
    short: refused,
    make: async (platform) => {
      const marker = markerOf('community');
      const community = await platform.ok('owner', {
        method: 'POST',
        url: '/communities',
        json: { name: marker },
      });
      const path = `/communities/${marker}`;
      await platform.ok('commoner', { method: 'POST', url: `${path}/join` });
      await platform.ok('owner', {
        method: 'POST',
        url: `${path}/admins`,
        json: { members: ['coowner', bystander] },
      });
      return { marker, id: community.id, name: marker, path };
    },
    readBack: (community) => [
      { method: 'GET', url: community.path },
      { method: 'GET', url: `${community.path}/admins` },
    ],
  },
};

const name = (group: Resource) => ({ name: group.name });
const others = (names: string[]) => () => ({ members: names });

export const groupRows: Row[] = [
  // Teams.
  { ops: ['GET /teams'], on: 'team', needs: 'listing' },
  {
    ops: ['GET /subjects'],
    on: 'team',
    needs: 'listing',
    query: (team) => ({ search: team.marker }),
  },
  { ops: ['GET /teams/{name}'], on: 'team', needs: 'read', params: name },
  {
    ops: ['PATCH /teams/{name}'],
    on: 'team',
    needs: 'own',
    writes: true,
    params: name,
    json: (team) => ({ description: `changed ${team.marker}` }),
  },
  {
    ops: ['DELETE /teams/{name}'],
    on: 'team',
    needs: 'own',
    writes: true,
    fresh: true,
    params: name,
  },
  { ops: ['GET /teams/{name}/members'], on: 'team', needs: 'read', params: name },
  {
    ops: ['POST /teams/{name}/members'],
    on: 'team',
    needs: 'write',
    writes: true,
    // Whoever is added gains what the group holds: on a group of its own.
    fresh: true,
    params: name,
    json: others(['commoner']),
  },
  {
    ops: ['POST /teams/{name}/members/deleter'],
    on: 'team',
    needs: 'write',
    writes: true,
    fresh: true,
    params: name,
    json: others([bystander]),
  },
  { ops: ['GET /teams/{name}/privileges'], on: 'team', needs: 'read', params: name },
  {
    ops: ['POST /teams/{name}/privileges'],
    on: 'team',
    needs: 'own',
    writes: true,
    params: name,
    json: () => ({ updates: [{ subject_id: bystander, privileges: ['view', 'optout'] }] }),
  },
  // Joining needs the optin privilege (a public one here); leaving is a member's own.
  {
    ops: ['POST /teams/{name}/leave'],
    on: 'team',
    needs: 'read',
    writes: true,
    fresh: true,
    params: name,
    // Holding privileges without being a member: nothing to leave, said per item.
    except: { reader: notAMember, writer: notAMember, coowner: notAMember },
  },
  {
    ops: ['POST /teams/{name}/join-request'],
    on: 'public team',
    needs: 'read',
    writes: true,
    params: name,
    json: () => ({ message: 'let me in' }),
    // A member asking is a mistake, not a refusal.
    except: { owner: alreadyMember, teammate: alreadyMember },
  },
  {
    ops: ['POST /teams/{name}/join-request/{requester}/deny'],
    on: 'public team',
    needs: 'own',
    writes: true,
    fresh: true,
    params: (team) => ({ name: team.name, requester: team.requester }),
    json: () => ({ message: 'no' }),
  },
  {
    // After the requests: whoever joins stays a member of the kind's team.
    ops: ['POST /teams/{name}/join'],
    on: 'public team',
    needs: 'read',
    writes: true,
    params: name,
  },
  // Collaborator lists: the path names one of the caller's own lists.
  { ops: ['GET /collaborator-lists'], on: 'list', needs: 'listing' },
  {
    ops: ['GET /subjects'],
    on: 'list',
    needs: 'listing',
    query: (list) => ({ search: list.marker }),
  },
  { ops: ['GET /collaborator-lists/{name}'], on: 'list', needs: 'own', params: name },
  {
    ops: ['PATCH /collaborator-lists/{name}'],
    on: 'list',
    needs: 'own',
    writes: true,
    params: name,
    json: (list) => ({ description: `changed ${list.marker}` }),
  },
  {
    ops: ['DELETE /collaborator-lists/{name}'],
    on: 'list',
    needs: 'own',
    writes: true,
    fresh: true,
    params: name,
  },
  { ops: ['GET /collaborator-lists/{name}/members'], on: 'list', needs: 'own', params: name },
  {
    ops: ['POST /collaborator-lists/{name}/members'],
    on: 'list',
    needs: 'own',
    writes: true,
    // Whoever is added gains what the group holds: on a group of its own.
    fresh: true,
    params: name,
    json: others(['commoner']),
  },
  {
    ops: ['POST /collaborator-lists/{name}/members/deleter'],
    on: 'list',
    needs: 'own',
    writes: true,
    fresh: true,
    params: name,
    json: others([bystander]),
  },
  // Communities: public to read and join; their admins change them.
  { ops: ['GET /communities'], on: 'community', needs: 'listing' },
  { ops: ['GET /communities/{name}'], on: 'community', needs: 'read', params: name },
  {
    ops: ['PATCH /communities/{name}'],
    on: 'community',
    needs: 'own',
    writes: true,
    params: name,
    json: (community) => ({ description: `changed ${community.marker}` }),
  },
  {
    ops: ['DELETE /communities/{name}'],
    on: 'community',
    needs: 'own',
    writes: true,
    fresh: true,
    params: name,
  },
  { ops: ['GET /communities/{name}/admins'], on: 'community', needs: 'read', params: name },
  {
    ops: ['POST /communities/{name}/admins'],
    on: 'community',
    needs: 'own',
    writes: true,
    // Whoever is added gains what the group holds: on a group of its own.
    fresh: true,
    params: name,
    json: others(['listmate']),
  },
  {
    ops: ['POST /communities/{name}/admins/deleter'],
    on: 'community',
    needs: 'own',
    writes: true,
    fresh: true,
    params: name,
    json: others([bystander]),
  },
  { ops: ['GET /communities/{name}/members'], on: 'community', needs: 'read', params: name },
  {
    ops: ['POST /communities/{name}/leave'],
    on: 'community',
    needs: 'read',
    writes: true,
    fresh: true,
    params: name,
    except: { stranger: notAMember, admin: notAMember },
  },
  {
    // After leaving: whoever joins stays a member of the kind's community.
    ops: ['POST /communities/{name}/join'],
    on: 'community',
    needs: 'read',
    writes: true,
    params: name,
  },
  // The groups administrator's routes: any community, for administrators only.
  { ops: ['GET /admin/communities'], on: 'community', needs: 'admin' },
  {
    ops: ['POST /admin/communities'],
    on: 'community',
    needs: 'admin',
    writes: true,
    json: () => ({ name: markerOf('made-by-admin') }),
  },
  {
    ops: ['GET /admin/communities/{name}', 'GET /admin/communities/{name}/admins'],
    on: 'community',
    needs: 'admin',
    params: name,
  },
  {
    ops: ['PATCH /admin/communities/{name}'],
    on: 'community',
    needs: 'admin',
    writes: true,
    params: name,
    json: (community) => ({ description: `an administrator changed ${community.marker}` }),
  },
  {
    ops: ['DELETE /admin/communities/{name}'],
    on: 'community',
    needs: 'admin',
    writes: true,
    fresh: true,
    params: name,
  },
  {
    ops: ['POST /admin/communities/{name}/admins'],
    on: 'community',
    needs: 'admin',
    writes: true,
    // Whoever is added gains what the group holds: on a group of its own.
    fresh: true,
    params: name,
    json: others(['listmate']),
  },
  {
    ops: ['POST /admin/communities/{name}/admins/deleter'],
    on: 'community',
    needs: 'admin',
    writes: true,
    fresh: true,
    params: name,
    json: others([bystander]),
  },
];
