// Tags: admin-apps, app-metadata (app metadata administration, routes.md §10). Passthroughs to the
// apps service, same path; the schemas document (and, for JSON bodies, check) what travels.
import { Type } from 'typebox';
import type { PassthroughRoute } from '../../http/passthrough.ts';
import type { Tag } from '../shared/tags.ts';
import { AdminAppCategory, AvuList, AvuReplace, AvuWrite } from './schemas.ts';
import { ErrorAnswer } from '../../common/error-replies.ts';

const errors = { 400: ErrorAnswer, 404: ErrorAnswer };

const categoryBody = {
  name: Type.String({ minLength: 1, maxLength: 255 }),
  description: Type.Optional(Type.String()),
  parent_id: Type.Optional(
    Type.Union([Type.String({ format: 'uuid' }), Type.Null()], {
      description: 'The parent category; absent or null: top level',
    }),
  ),
};

const usernames = Type.Object(
  {
    username: Type.Union([Type.String(), Type.Array(Type.String())], {
      description: 'A user (repeatable); a short name is qualified with the UID domain',
    }),
  },
  { additionalProperties: true },
);

const Workspace = Type.Object({
  id: Type.String(),
  user_id: Type.String(),
  username: Type.String(),
  root_category_id: Type.String(),
  is_public: Type.Boolean(),
});

export const appMetadataPassthroughs: PassthroughRoute<Tag>[] = [
  {
    method: 'GET',
    path: '/admin/apps/categories',
    backend: 'apps',
    auth: 'admin',
    tag: 'admin-apps',
    summary: 'List the public app categories (a tree)',
    query: Type.Object(
      {
        limit: Type.Optional(
          Type.Integer({
            minimum: 0,
            description: 'Top-level categories per page; 0 or absent: all',
          }),
        ),
        offset: Type.Optional(Type.Integer({ minimum: 0 })),
        'sort-field': Type.Optional(
          Type.String({ description: 'name (default) or total; orders siblings' }),
        ),
        'sort-dir': Type.Optional(Type.String({ description: 'ASC or DESC' })),
        'app-type': Type.Optional(Type.String({ description: 'Count only apps of this type' })),
      },
      { additionalProperties: true },
    ),
    responses: { 200: Type.Object({ categories: Type.Array(AdminAppCategory) }), 400: ErrorAnswer },
  },
  {
    method: 'GET',
    path: '/admin/apps/categories/search',
    backend: 'apps',
    auth: 'admin',
    tag: 'admin-apps',
    summary: 'Search public app categories by name',
    query: Type.Object(
      { name: Type.String({ minLength: 1, description: 'Part of the name, any letter case' }) },
      { additionalProperties: true },
    ),
    responses: { 200: Type.Object({ categories: Type.Array(AdminAppCategory) }), 400: ErrorAnswer },
  },
  {
    method: 'POST',
    path: '/admin/apps/categories/{system-id}',
    backend: 'apps',
    auth: 'admin',
    tag: 'admin-apps',
    summary: 'Add a public app category',
    body: Type.Object(categoryBody),
    responses: { 200: AdminAppCategory, ...errors },
  },
  {
    method: 'PATCH',
    path: '/admin/apps/categories/{system-id}/{category-id}',
    backend: 'apps',
    auth: 'admin',
    tag: 'admin-apps',
    summary: 'Rename or move a public app category',
    body: Type.Object({ ...categoryBody, name: Type.Optional(categoryBody.name) }),
    responses: { 200: AdminAppCategory, ...errors },
  },
  {
    method: 'DELETE',
    path: '/admin/apps/categories/{system-id}/{category-id}',
    backend: 'apps',
    auth: 'admin',
    tag: 'admin-apps',
    summary: 'Delete an empty public app category',
    responses: { 200: Type.Object({ id: Type.String() }), ...errors },
  },
  {
    method: 'GET',
    path: '/admin/apps/{app-id}/metadata',
    backend: 'apps',
    auth: 'admin',
    tag: 'app-metadata',
    summary: 'Get the AVUs of any app',
    responses: { 200: AvuList, 404: ErrorAnswer },
  },
  {
    method: 'POST',
    path: '/admin/apps/{app-id}/metadata',
    backend: 'apps',
    auth: 'admin',
    tag: 'app-metadata',
    summary: 'Add or update AVUs of any app',
    body: AvuWrite,
    responses: { 200: AvuList, ...errors },
  },
  {
    method: 'PUT',
    path: '/admin/apps/{app-id}/metadata',
    backend: 'apps',
    auth: 'admin',
    tag: 'app-metadata',
    summary: 'Replace the AVUs of any app',
    body: AvuReplace,
    responses: { 200: AvuList, ...errors },
  },
  {
    method: 'GET',
    path: '/admin/workspaces',
    backend: 'apps',
    auth: 'admin',
    tag: 'admin-apps',
    summary: 'List the workspaces of users',
    query: usernames,
    responses: { 200: Type.Object({ workspaces: Type.Array(Workspace) }), 400: ErrorAnswer },
  },
  {
    method: 'DELETE',
    path: '/admin/workspaces',
    backend: 'apps',
    auth: 'admin',
    tag: 'admin-apps',
    summary: 'Delete the workspaces of users (made afresh on their next request)',
    query: usernames,
    responses: {
      200: Type.Object({
        workspaces: Type.Array(Workspace, { description: 'The workspaces removed' }),
      }),
      400: ErrorAnswer,
    },
  },
];
