// The administrators' workshop group routes the gateway sends to the apps service (routes.md §18:
// `GET /admin/groups/workshop`, `GET|PUT /admin/groups/workshop/members`), kept by the groups
// service through its door. The gateway lets only administrators reach `/admin`.
import type { FastifyPluginAsync } from 'fastify';
import type { Kysely } from 'kysely';
import { Type } from 'typebox';
import type { Database } from '../../../store/schema.ts';
import { replaceWorkshopMembers, workshopGroupView, workshopMembers } from '../../groups/index.ts';
import { shortUsername } from '../../../common/users.ts';

export const workshopGroupRoutes: FastifyPluginAsync<{
  db: Kysely<Database>;
  uidDomain: string;
  now: () => number;
}> = async (app, { db, uidDomain, now }) => {
  app.get('/admin/groups/workshop', async () => workshopGroupView(db, now()));

  app.get('/admin/groups/workshop/members', async () => workshopMembers(db, uidDomain, now()));

  app.put(
    '/admin/groups/workshop/members',
    {
      schema: {
        body: Type.Object({
          members: Type.Array(Type.String({ minLength: 1, maxLength: 512 }), { maxItems: 10_000 }),
        }),
      },
    },
    async (request) =>
      replaceWorkshopMembers(
        db,
        uidDomain,
        (request.body as { members: string[] }).members.map(
          shortUsername, // members are short usernames, as elsewhere in the groups API
        ),
        now(),
      ),
  );
};
