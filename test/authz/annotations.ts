// What users attach to others' apps, files and folders, in the authorization matrix
// (comments-favorites.md, metadata.md's tags): comments (posted and read by whoever sees the
// target; retracted by their author or the target's owner: the app's integrator, an `own` holder
// of an entry), favourites and tags (each user's own, on what they can read).
import { dataKinds } from './data.ts';
import type { Denial, Kind, Resource, Row } from './model.ts';
import type { Call } from './platform.ts';

const notFound: Denial = { status: 404, code: 'ERR_NOT_FOUND' };
const notOwner: Denial = { status: 403, code: 'ERR_NOT_OWNER' };

/** A comment of the reader's on the shared app (`app`) or file (`file`). */
function commentKind(target: 'app' | 'file'): Kind {
  const path = (resource: Resource) =>
    target === 'app'
      ? `/apps/${resource.id}/comments`
      : `/secured/filesystem/entry/${resource.id}/comments`;
  return {
    about:
      target === 'app'
        ? "a comment of the reader's on the owner's app (the owner is its integrator)"
        : "a comment of the reader's on the owner's file (the owner and the co-owner own the file)",
    owner: 'reader',
    grants:
      target === 'app'
        ? { owner: 'own', writer: 'read', coowner: 'read', teammate: 'read', listmate: 'read' }
        : { owner: 'own', coowner: 'own', writer: 'read' },
    hidden: notFound,
    short: notOwner,
    make: async (platform, shared) => {
      const resource = await shared(target);
      const posted = await platform.ok('reader', {
        method: 'POST',
        url: path(resource),
        json: { comment: `a comment on ${resource.marker}` },
      });
      return { marker: posted.comment.id, id: resource.id, comment: posted.comment.id };
    },
    readBack: (comment) => [{ method: 'GET', url: path(comment) }],
  };
}

const comments =
  (on: string) =>
  (resource: Resource): Call[] => [
    {
      method: 'GET',
      url:
        on === 'app'
          ? `/apps/${resource.id}/comments`
          : `/secured/filesystem/entry/${resource.id}/comments`,
    },
  ];

export const annotationKinds: Record<string, Kind> = {
  'app comment': commentKind('app'),
  'file comment': commentKind('file'),
  favourite: {
    about: "the owner's favourite: a file of theirs",
    grants: {},
    hidden: notFound,
    short: notFound,
    make: async (platform, shared) => {
      const file = await dataKinds.file!.make(platform, shared);
      await platform.ok('owner', {
        method: 'PUT',
        url: `/secured/favorites/filesystem/${file.id}`,
      });
      return { ...file, marker: file.id };
    },
    readBack: () => [favourites],
  },
  'tagged file': {
    about:
      "the owner's file (shared as a file is) with a tag of the owner's attached, and a tag of each other user's own",
    grants: dataKinds.file!.grants,
    hidden: { status: 404, code: 'ERR_DOES_NOT_EXIST' },
    short: notFound,
    make: async (platform, shared) => {
      const file = await shared('file');
      const tags: Record<string, string> = {};
      for (const actor of ['owner', 'reader', 'writer', 'coowner', 'stranger', 'admin'] as const)
        tags[actor] = (
          await platform.ok(actor, {
            method: 'POST',
            url: '/secured/tags/user',
            json: { value: `${file.marker} tag of ${actor}` },
          })
        ).id;
      await platform.ok('owner', {
        method: 'PATCH',
        url: `/secured/filesystem/entry/${file.id}/tags?type=attach`,
        json: { tags: [tags.owner] },
      });
      return { marker: `${file.marker} tag of owner`, id: file.id, tags };
    },
    readBack: (file) => [
      { method: 'GET', url: `/secured/filesystem/entry/${file.id}/tags` },
      { method: 'GET', url: '/secured/filesystem/entry/tags' },
    ],
  },
};

const favourites: Call = {
  method: 'GET',
  url: '/secured/favorites/filesystem?sort-col=NAME&sort-dir=ASC&limit=100&offset=0',
};
const retract = () => ({ retracted: 'true' });

export const annotationRows: Row[] = [
  // Comments on apps.
  {
    ops: ['POST /apps/{appId}/comments'],
    on: 'app',
    needs: 'read',
    writes: true,
    params: (app) => ({ appId: app.id }),
    json: (app, actor) => ({ comment: `${actor} on ${app.marker}` }),
    readBack: comments('app'),
  },
  {
    ops: ['GET /apps/{appId}/comments'],
    on: 'app',
    needs: 'read',
    params: (app) => ({ appId: app.id }),
  },
  {
    ops: ['PATCH /apps/{appId}/comments/{commentId}'],
    on: 'app comment',
    needs: 'own',
    writes: true,
    fresh: true,
    params: (comment) => ({ appId: comment.id, commentId: comment.comment }),
    query: retract,
  },
  // Comments on files and folders.
  {
    ops: [
      'POST /secured/filesystem/entry/{entryId}/comments',
      'GET /secured/filesystem/entry/{entryId}/comments',
    ],
    on: 'file',
    needs: 'read',
    writes: true,
    params: (file) => ({ entryId: file.id }),
    json: (file, actor) => ({ comment: `${actor} on ${file.marker}` }),
    hidden: notFound,
    readBack: comments('file'),
  },
  {
    ops: [
      'PATCH /secured/filesystem/entry/{entryId}/comments/{commentId}',
      'PATCH /filesystem/entry/{entryId}/comments/{commentId}',
    ],
    on: 'file comment',
    needs: 'own',
    writes: true,
    fresh: true,
    params: (comment) => ({ entryId: comment.id, commentId: comment.comment }),
    query: retract,
  },
  // Administrators' comment routes.
  {
    ops: ['PATCH /admin/apps/{appId}/comments/{commentId}'],
    on: 'app comment',
    needs: 'admin',
    writes: true,
    fresh: true,
    params: (comment) => ({ appId: comment.id, commentId: comment.comment }),
    query: retract,
  },
  {
    ops: ['DELETE /admin/apps/{appId}/comments/{commentId}'],
    on: 'app comment',
    needs: 'admin',
    writes: true,
    fresh: true,
    params: (comment) => ({ appId: comment.id, commentId: comment.comment }),
  },
  {
    ops: ['PATCH /admin/filesystem/entry/{entryId}/comments/{commentId}'],
    on: 'file comment',
    needs: 'admin',
    writes: true,
    fresh: true,
    params: (comment) => ({ entryId: comment.id, commentId: comment.comment }),
    query: retract,
  },
  {
    ops: [
      'DELETE /admin/filesystem/entry/{entryId}/comments/{commentId}',
      'DELETE /admin/filsystem/entry/{entryId}/comments/{commentId}',
    ],
    on: 'file comment',
    needs: 'admin',
    writes: true,
    fresh: true,
    params: (comment) => ({ entryId: comment.id, commentId: comment.comment }),
  },
  {
    ops: ['GET /admin/comments/{commenterId}'],
    on: 'app comment',
    needs: 'admin',
    params: () => ({ commenterId: 'reader' }),
  },
  {
    // Every comment of the reader's goes: the last comment row.
    ops: ['DELETE /admin/comments/{commenterId}'],
    on: 'app comment',
    needs: 'admin',
    writes: true,
    spoils: true,
    params: () => ({ commenterId: 'reader' }),
  },
  // Favourites: each user's own, of what they can read.
  {
    ops: ['PUT /secured/favorites/filesystem/{favorite}'],
    on: 'file',
    needs: 'read',
    writes: true,
    params: (file) => ({ favorite: file.id }),
    hidden: notFound,
    readBack: () => [favourites],
  },
  {
    ops: ['DELETE /secured/favorites/filesystem/{favorite}'],
    on: 'favourite',
    needs: 'own',
    writes: true,
    fresh: true,
    params: (file) => ({ favorite: file.id }),
  },
  {
    ops: ['GET /secured/favorites/filesystem', 'GET /favorites/filesystem'],
    on: 'favourite',
    needs: 'listing',
    query: () => ({ 'sort-col': 'NAME', 'sort-dir': 'ASC', limit: '100', offset: '0' }),
  },
  {
    ops: ['POST /secured/favorites/filter'],
    on: 'favourite',
    needs: 'listing',
    json: (file) => ({ filesystem: [file.id] }),
  },
  {
    ops: ['DELETE /secured/favorites/filesystem'],
    on: 'favourite',
    needs: 'listing',
    writes: true,
    fresh: true,
    spoils: true,
  },
  // Tags on files and folders: one's own tags, on entries one can read.
  {
    ops: ['GET /secured/filesystem/entry/{entryId}/tags'],
    on: 'tagged file',
    needs: 'read',
    params: (file) => ({ entryId: file.id }),
  },
  {
    ops: ['PATCH /secured/filesystem/entry/{entryId}/tags'],
    on: 'tagged file',
    needs: 'read',
    writes: true,
    params: (file) => ({ entryId: file.id }),
    query: () => ({ type: 'attach' }),
    json: (file, actor) => ({ tags: [file.tags[actor] ?? file.tags.stranger] }),
  },
  {
    ops: ['GET /secured/filesystem/entry/tags'],
    on: 'tagged file',
    needs: 'listing',
    except: { reader: 'blind', writer: 'blind', coowner: 'blind' },
  },
  {
    ops: ['DELETE /secured/filesystem/entry/tags'],
    on: 'tagged file',
    needs: 'listing',
    writes: true,
    spoils: true,
    except: { reader: 'blind', writer: 'blind', coowner: 'blind' },
  },
];
