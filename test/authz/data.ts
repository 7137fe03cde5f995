// The data store's part of the authorization matrix (docs/api/data-store.md, metadata.md,
// file-types.md): a file and a folder of the owner's shared read, write and own with three users
// (files and folders are shared with users only, never with groups), an item in the owner's trash,
// a ticket, the owner's home, and the routes on them. The data store names the paths that exist
// (backends.md §2, docs/api/data-store.md "Statuses"): a caller short of the level a route needs
// gets 403 with the level's code, ERR_NOT_READABLE, ERR_NOT_WRITEABLE or ERR_NOT_OWNER, whether
// they hold a lower level or none; file I/O answers those codes with 500 (spec "Errors" 2).
import { unauthenticated, type Denial, type Kind, type Resource, type Row } from './model.ts';
import {
  both,
  bystander,
  homeOf,
  markerOf,
  uploadForm,
  type Actor,
  type Call,
  type Platform,
} from './platform.ts';

const q = encodeURIComponent;

const grants = { reader: 'read', writer: 'write', coowner: 'own' } as const;

const notReadable: Denial = { status: 403, code: 'ERR_NOT_READABLE' };
const notWriteable: Denial = { status: 403, code: 'ERR_NOT_WRITEABLE' };
const notOwner: Denial = { status: 403, code: 'ERR_NOT_OWNER' };
/** File I/O's refusals (spec "Errors" 2: 500 with the code). */
const fileioNotReadable: Denial = { status: 500, code: 'ERR_NOT_READABLE' };
const fileioNotWriteable: Denial = { status: 500, code: 'ERR_NOT_WRITEABLE' };

async function upload(platform: Platform, actor: Actor, folder: string, name: string) {
  await platform.ok(actor, {
    method: 'POST',
    url: `/secured/fileio/upload?dest=${q(folder)}`,
    form: uploadForm(name, 'name,size\nalpha,1\nbeta,2\n'),
  });
  return stat(platform, actor, `${folder}/${name}`);
}

async function stat(platform: Platform, actor: Actor, path: string) {
  const answer = await platform.ok(actor, {
    method: 'POST',
    url: '/secured/filesystem/stat',
    json: { paths: [path] },
  });
  return answer.paths[path];
}

/** Shares `path` as the kinds' grants say, and with the bystander (whom unsharing names). */
async function shareAll(platform: Platform, path: string) {
  await platform.ok('owner', {
    method: 'POST',
    url: '/secured/share',
    json: {
      sharing: [...Object.entries(grants), [bystander, 'read']].map(([user, permission]) => ({
        user,
        paths: [{ path, permission }],
      })),
    },
  });
}

const statOf = (path: string): Call => ({
  method: 'POST',
  url: '/secured/filesystem/stat',
  json: { paths: [path] },
});
const permissionsOf = (path: string): Call => ({
  method: 'POST',
  url: '/secured/filesystem/user-permissions',
  json: { paths: [path] },
});
const listingOf = (path: string): Call => ({
  method: 'GET',
  url: `/secured/filesystem/paged-directory?limit=100&path=${q(path)}`,
});
const metadataOf = (resource: Resource): Call => ({
  method: 'GET',
  url: `/secured/filesystem/${resource.id}/metadata`,
});

/** The ids of a file of each user's own, in their home (the other end of a copy), made once. */
const ownFiles = new WeakMap<Platform, Promise<Record<string, string>>>();
function ownFileIds(platform: Platform): Promise<Record<string, string>> {
  let ids = ownFiles.get(platform);
  if (!ids) {
    ids = (async () => {
      const found: Record<string, string> = {};
      for (const actor of ['owner', 'reader', 'writer', 'coowner', 'stranger', 'admin'] as const)
        found[actor] = (await upload(platform, actor, platform.home(actor), `own-${actor}.csv`)).id;
      return found;
    })();
    ownFiles.set(platform, ids);
  }
  return ids;
}

export const dataKinds: Record<string, Kind> = {
  file: {
    about: "a CSV file in the owner's home with one AVU, shared read, write and own",
    grants,
    hidden: notReadable,
    short: notWriteable,
    make: async (platform) => {
      const marker = markerOf('file');
      const file = await upload(platform, 'owner', platform.home('owner'), `${marker}.csv`);
      await shareAll(platform, file.path);
      await platform.ok('owner', {
        method: 'POST',
        url: `/secured/filesystem/${file.id}/metadata`,
        json: { avus: [{ attr: 'colour', value: marker, unit: '' }] },
      });
      const own = await ownFileIds(platform);
      return { marker, path: file.path, id: file.id, name: `${marker}.csv`, own };
    },
    readBack: (file) => [statOf(file.path), permissionsOf(file.path)],
  },
  folder: {
    about:
      "a folder in the owner's home holding one file (`inner`: the grant on the folder covers it), shared read, write and own",
    grants,
    hidden: notReadable,
    short: notWriteable,
    make: async (platform) => {
      const marker = markerOf('folder');
      const path = `${platform.home('owner')}/${marker}`;
      await platform.ok('owner', {
        method: 'POST',
        url: '/secured/filesystem/directory/create',
        json: { path },
      });
      const inner = await upload(platform, 'owner', path, `inner-${marker}.csv`);
      // Metadata for the inner file, as the CSV parser reads it (a path column, then attributes).
      await platform.ok('owner', {
        method: 'POST',
        url: '/secured/fileio/saveas',
        json: {
          dest: `${path}/avus-${marker}.csv`,
          content: `path,colour\ninner-${marker}.csv,blue\n`,
        },
      });
      await shareAll(platform, path);
      const folder = await stat(platform, 'owner', path);
      return { marker, path, id: folder.id, inner: inner.path, innerId: inner.id };
    },
    readBack: (folder) => [listingOf(folder.path)],
  },
  trashed: {
    about:
      "a file shared read, write and own, then deleted into the owner's trash: its grants travel with it, but no one else reaches anything in another's trash",
    grants: {},
    also: ['reader', 'writer', 'coowner'],
    hidden: notReadable,
    short: notOwner,
    make: async (platform) => {
      const marker = markerOf('trashed');
      const file = await upload(platform, 'owner', platform.home('owner'), `${marker}.csv`);
      await shareAll(platform, file.path);
      const deleted = await platform.ok('owner', {
        method: 'POST',
        url: '/secured/filesystem/delete',
        json: { paths: [file.path] },
      });
      return { marker, path: file.path, trashPath: deleted['trash-paths'][file.path] };
    },
    readBack: (item) => [statOf(item.trashPath)],
  },
  ticket: {
    about: "a ticket (a download link) on the owner's file, which is shared read, write and own",
    grants,
    hidden: notWriteable,
    short: notWriteable,
    make: async (platform) => {
      const marker = markerOf('ticket');
      const file = await upload(platform, 'owner', platform.home('owner'), `${marker}.csv`);
      await shareAll(platform, file.path);
      const answer = await platform.ok('owner', {
        method: 'POST',
        url: '/secured/filesystem/tickets?public=false',
        json: { paths: [file.path] },
      });
      const ticket = answer.tickets[0]['ticket-id'];
      return { marker: ticket, path: file.path, ticket, name: `${marker}.csv` };
    },
    readBack: (ticket) => [ticketsOf(ticket.path)],
  },
  home: {
    about: "the owner's home and trash (what a caller's own listings and summaries show)",
    grants: {},
    hidden: notReadable,
    short: notOwner,
    make: async (platform) => ({
      marker: `"${platform.home('owner')}"`,
      path: platform.home('owner'),
    }),
    readBack: (home) => [listingOf(home.path)],
  },
};

const ticketsOf = (path: string): Call => ({
  method: 'POST',
  url: '/secured/filesystem/list-tickets',
  json: { paths: [path] },
});
const paths = (resource: Resource) => ({ paths: [resource.path] });
const innerPaths = (folder: Resource) => ({ paths: [folder.inner] });
/** A name no earlier call used (a fresh destination for each caller). */
const fresh = (prefix: string) => markerOf(prefix);
/** Signed out, the read routes serve public data only: anything else is 401 (data-store.md). */
const signedOutReads = { anonymous: unauthenticated };

export const dataRows: Row[] = [
  // Listings and summaries of one's own: they show the caller's home, never another's.
  { ops: ['GET /secured/filesystem/root'], on: 'home', needs: 'listing' },
  { ops: ['GET /secured/filesystem/index'], on: 'home', needs: 'listing' },
  // Reading.
  {
    ops: ['GET /secured/filesystem/directory'],
    on: 'folder',
    needs: 'read',
    query: (folder) => ({ path: folder.path }),
  },
  {
    ops: both('GET', '/filesystem/paged-directory'),
    on: 'folder',
    needs: 'read',
    query: (folder) => ({ path: folder.path, limit: '10' }),
    except: signedOutReads,
  },
  {
    ops: both('POST', '/filesystem/stat'),
    on: 'file',
    needs: 'read',
    json: paths,
    except: signedOutReads,
  },
  {
    ops: both('GET', '/filesystem/file/manifest'),
    on: 'file',
    needs: 'read',
    query: (file) => ({ path: file.path }),
    except: signedOutReads,
  },
  {
    ops: both('POST', '/filesystem/read-chunk'),
    on: 'file',
    needs: 'read',
    json: (file) => ({ path: file.path, position: 0, 'chunk-size': 100 }),
    except: signedOutReads,
  },
  {
    ops: both('POST', '/filesystem/read-csv-chunk'),
    on: 'file',
    needs: 'read',
    json: (file) => ({ path: file.path, page: 1, 'chunk-size': 100, separator: '%2C' }),
    except: signedOutReads,
  },
  {
    ops: both('GET', '/fileio/download'),
    on: 'file',
    needs: 'read',
    query: (file) => ({ path: file.path }),
    hidden: fileioNotReadable,
  },
  {
    ops: both('GET', '/filesystem/display-download'),
    on: 'file',
    needs: 'read',
    query: (file) => ({ path: file.path }),
    hidden: fileioNotReadable,
  },
  {
    ops: both('POST', '/filesystem/search'),
    on: 'file',
    needs: 'listing',
    json: (file) => ({ query: { all: [{ type: 'label', args: { label: file.marker } }] } }),
  },
  {
    ops: ['POST /secured/filesystem/exists'],
    on: 'file',
    needs: 'listing',
    json: paths,
    seen: (answer, file) => answer.body?.paths?.[file.path] === true,
  },
  {
    ops: both('POST', '/filesystem/user-permissions'),
    on: 'file',
    needs: 'own',
    json: paths,
    hidden: notOwner,
    short: notOwner,
  },
  {
    ops: both('POST', '/filesystem/path-list-creator'),
    on: 'folder',
    needs: 'read',
    writes: true,
    query: (folder, actor) => ({ dest: `${homeOf(actor)}/${fresh(`list-${folder.marker}`)}.txt` }),
    json: paths,
  },
  // Adding to a folder.
  {
    ops: both('POST', '/filesystem/directory/create'),
    on: 'folder',
    needs: 'write',
    writes: true,
    json: (folder, actor) => ({ path: `${folder.path}/${fresh(`made-by-${actor}`)}` }),
    hidden: notWriteable,
  },
  {
    ops: both('POST', '/filesystem/directories'),
    on: 'folder',
    needs: 'write',
    writes: true,
    json: (folder, actor) => ({ paths: [`${folder.path}/${fresh(`dirs-by-${actor}`)}`] }),
    hidden: notWriteable,
  },
  {
    ops: both('POST', '/fileio/upload'),
    on: 'folder',
    needs: 'write',
    writes: true,
    query: (folder) => ({ dest: folder.path }),
    form: (_, actor) => uploadForm(`${fresh(`upload-by-${actor}`)}.txt`, 'uploaded'),
    hidden: fileioNotWriteable,
    short: fileioNotWriteable,
  },
  {
    ops: both('POST', '/fileio/saveas'),
    on: 'folder',
    needs: 'write',
    writes: true,
    json: (folder, actor) => ({
      dest: `${folder.path}/${fresh(`saved-by-${actor}`)}.txt`,
      content: 'saved',
    }),
    hidden: fileioNotWriteable,
    short: fileioNotWriteable,
  },
  {
    ops: both('POST', '/fileio/urlupload'),
    on: 'folder',
    needs: 'write',
    writes: true,
    // A closed loopback port (the platform allows private addresses): the import fails at once.
    json: (folder) => ({ dest: folder.path, address: `http://127.0.0.1:9/${fresh('import')}.txt` }),
    hidden: fileioNotWriteable,
    short: fileioNotWriteable,
  },
  // Changing a file.
  {
    ops: both('POST', '/fileio/overwrite'),
    on: 'file',
    needs: 'write',
    writes: true,
    query: (file) => ({ dest: file.path }),
    form: (file) => uploadForm(file.name, 'name,size\nalpha,1\nbeta,2\n'),
    hidden: fileioNotWriteable,
    short: fileioNotWriteable,
  },
  {
    ops: both('POST', '/fileio/save'),
    on: 'file',
    needs: 'write',
    writes: true,
    json: (file) => ({ dest: file.path, content: 'name,size\nalpha,1\nbeta,2\n' }),
    hidden: fileioNotWriteable,
    short: fileioNotWriteable,
  },
  // Moving, renaming and deleting: the item's own level, and write on the folders it leaves and
  // enters (the inner file of the shared folder, whose grants cover both).
  {
    ops: both('POST', '/filesystem/rename'),
    on: 'folder',
    needs: 'own',
    writes: true,
    fresh: true,
    json: (folder) => ({ source: folder.inner, dest: `${folder.inner}.renamed` }),
    short: notOwner,
  },
  {
    ops: both('POST', '/filesystem/move'),
    on: 'folder',
    needs: 'own',
    writes: true,
    fresh: true,
    json: (folder, actor) => ({ sources: [folder.inner], dest: homeOf(actor) }),
    hidden: notOwner,
    short: notOwner,
  },
  {
    ops: both('POST', '/filesystem/move-contents'),
    on: 'folder',
    needs: 'own',
    writes: true,
    fresh: true,
    json: (folder, actor) => ({ source: folder.path, dest: homeOf(actor) }),
    short: notOwner,
  },
  {
    ops: both('POST', '/filesystem/delete'),
    on: 'folder',
    needs: 'own',
    writes: true,
    fresh: true,
    json: innerPaths,
    hidden: notOwner,
    short: notOwner,
  },
  {
    ops: both('POST', '/filesystem/delete-contents'),
    on: 'folder',
    needs: 'own',
    writes: true,
    fresh: true,
    json: (folder) => ({ path: folder.path }),
    short: notOwner,
  },
  // Making public and ticketing (a ticket needs write: backends.md §2.6).
  {
    ops: both('POST', '/filesystem/anon-files'),
    on: 'file',
    needs: 'own',
    writes: true,
    fresh: true,
    json: paths,
    hidden: notOwner,
    short: notOwner,
  },
  {
    ops: ['POST /secured/filesystem/tickets'],
    on: 'file',
    needs: 'write',
    writes: true,
    query: () => ({ public: 'false' }),
    json: paths,
    hidden: notWriteable,
    readBack: (file) => [ticketsOf(file.path)],
  },
  { ops: ['POST /secured/filesystem/list-tickets'], on: 'ticket', needs: 'write', json: paths },
  {
    ops: ['POST /secured/filesystem/delete-tickets'],
    on: 'ticket',
    needs: 'write',
    writes: true,
    fresh: true,
    json: (ticket) => ({ tickets: [ticket.ticket] }),
  },
  // A ticket is the credential: whoever holds its id reads what it grants, signed in or not.
  {
    ops: ['GET /tickets/{ticketId}', 'GET /tickets/d/{ticketId}/{filename}'],
    on: 'ticket',
    needs: 'anyone',
    params: (ticket) => ({ ticketId: ticket.ticket, filename: ticket.name }),
  },
  // Sharing: the owner's (own) alone; each path reports its outcome.
  {
    ops: both('POST', '/share'),
    on: 'file',
    needs: 'own',
    writes: true,
    fresh: true,
    json: (file) => ({
      sharing: [{ user: 'commoner', paths: [{ path: file.path, permission: 'read' }] }],
    }),
    hidden: { item: 'ERR_NOT_OWNER' },
    short: { item: 'ERR_NOT_OWNER' },
  },
  {
    ops: both('POST', '/unshare'),
    on: 'file',
    needs: 'own',
    writes: true,
    fresh: true,
    json: (file) => ({ unshare: [{ user: bystander, paths: [file.path] }] }),
    hidden: { item: 'ERR_NOT_OWNER' },
    short: { item: 'ERR_NOT_OWNER' },
  },
  // The trash: no one but its owner reads, restores, moves or deletes what is in it, whatever
  // grants travelled there with an item; emptying it and restoring all are the caller's own.
  {
    ops: both('POST', '/filesystem/stat'),
    on: 'trashed',
    needs: 'own',
    json: (item) => ({ paths: [item.trashPath] }),
    except: signedOutReads,
  },
  {
    ops: both('POST', '/filesystem/restore'),
    on: 'trashed',
    needs: 'own',
    writes: true,
    fresh: true,
    json: (item) => ({ paths: [item.trashPath] }),
    hidden: notWriteable,
  },
  {
    ops: both('POST', '/filesystem/delete'),
    on: 'trashed',
    needs: 'own',
    writes: true,
    fresh: true,
    json: (item) => ({ paths: [item.trashPath] }),
    hidden: notOwner,
  },
  {
    ops: both('POST', '/filesystem/move'),
    on: 'trashed',
    needs: 'own',
    writes: true,
    fresh: true,
    json: (item, actor) => ({ sources: [item.trashPath], dest: homeOf(actor) }),
    hidden: notOwner,
  },
  {
    ops: both('POST', '/filesystem/restore-all'),
    on: 'trashed',
    needs: 'listing',
    writes: true,
    fresh: true,
  },
  {
    ops: both('DELETE', '/filesystem/trash'),
    on: 'trashed',
    needs: 'listing',
    writes: true,
    fresh: true,
  },
  // Metadata (AVUs) of files and folders.
  {
    ops: both('GET', '/filesystem/{dataId}/metadata'),
    on: 'file',
    needs: 'read',
    params: (file) => ({ dataId: file.id }),
  },
  {
    ops: both('POST', '/filesystem/{dataId}/metadata'),
    on: 'file',
    needs: 'write',
    writes: true,
    params: (file) => ({ dataId: file.id }),
    json: (file) => ({ avus: [{ attr: 'colour', value: file.marker, unit: '' }] }),
    hidden: notWriteable,
    readBack: (file) => [metadataOf(file)],
  },
  {
    ops: both('POST', '/filesystem/{dataId}/metadata/add'),
    on: 'file',
    needs: 'write',
    writes: true,
    params: (file) => ({ dataId: file.id }),
    json: (_, actor) => ({ avus: [{ attr: 'added-by', value: actor, unit: '' }] }),
    hidden: notWriteable,
    readBack: (file) => [metadataOf(file)],
  },
  {
    ops: both('POST', '/filesystem/{dataId}/metadata/copy'),
    on: 'file',
    needs: 'write',
    writes: true,
    // From a file of the caller's own onto the owner's: writing the owner's metadata.
    params: (file, actor) => ({ dataId: file.own[actor] ?? file.id }),
    json: (file) => ({ destination_ids: [file.id] }),
    hidden: notWriteable,
    readBack: (file) => [metadataOf(file)],
  },
  {
    ops: both('GET', '/filesystem/metadata'),
    on: 'file',
    needs: 'listing',
    query: (file) => ({ attribute: 'colour', value: file.marker }),
  },
  {
    ops: both('POST', '/filesystem/metadata/search'),
    on: 'file',
    needs: 'listing',
    json: (file) => ({ attribute: ['colour'], value: [file.marker] }),
  },
  {
    ops: both('POST', '/filesystem/{dataId}/metadata/save'),
    on: 'file',
    needs: 'read',
    writes: true,
    params: (file) => ({ dataId: file.id }),
    json: (file, actor) => ({ dest: `${homeOf(actor)}/${fresh(`metadata-${file.marker}`)}.json` }),
  },
  {
    // Written next to the item: read on it, write on its folder (the shared folder's inner file).
    ops: both('POST', '/filesystem/{dataId}/ore/save'),
    on: 'folder',
    needs: 'write',
    writes: true,
    params: (folder) => ({ dataId: folder.innerId }),
  },
  {
    // Applying a CSV's metadata: read on the CSV, write on every path it names.
    ops: both('POST', '/filesystem/metadata/csv-parser'),
    on: 'folder',
    needs: 'write',
    writes: true,
    query: (folder) => ({ dest: folder.path, src: `${folder.path}/avus-${folder.marker}.csv` }),
    readBack: (folder) => [
      { method: 'GET', url: `/secured/filesystem/${folder.innerId}/metadata` },
    ],
  },
  // File types.
  {
    ops: both('GET', '/filetypes/type'),
    on: 'file',
    needs: 'read',
    query: (file) => ({ path: file.path }),
  },
  {
    ops: both('POST', '/filetypes/type'),
    on: 'file',
    needs: 'write',
    writes: true,
    json: (file) => ({ path: file.path, type: 'csv' }),
    hidden: notReadable,
  },
  {
    ops: both('DELETE', '/filetypes/type'),
    on: 'file',
    needs: 'write',
    writes: true,
    query: (file) => ({ path: file.path }),
    hidden: notReadable,
  },
];
