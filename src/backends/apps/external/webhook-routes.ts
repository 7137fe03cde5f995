// Users' webhooks (routes.md §18, docs/api/webhooks.md): the apps service serves the routes, the
// notification agent keeps the webhooks and delivers to them (through its door).
import type { FastifyPluginAsync } from 'fastify';
import type { Kysely } from 'kysely';
import type { Database } from '../../../store/schema.ts';
import {
  replaceWebhooks,
  userWebhooks,
  webhookTopics,
  webhookTypes,
} from '../../notification-agent/index.ts';
import { signedInUser } from '../shared/index.ts';

export const webhookRoutes: FastifyPluginAsync<{
  db: Kysely<Database>;
  allowPrivateNetworks: boolean;
  now: () => number;
}> = async (app, { db, allowPrivateNetworks, now }) => {
  app.get('/webhooks/types', async () => webhookTypes(db));
  app.get('/webhooks/topics', async () => webhookTopics(db));
  app.get('/webhooks', async (request) => ({
    webhooks: await userWebhooks(db, signedInUser(request.query, 'list webhooks')),
  }));
  app.put('/webhooks', async (request) => ({
    webhooks: await replaceWebhooks(
      db,
      signedInUser(request.query, 'keep webhooks'),
      request.body,
      { allowPrivateNetworks, now },
    ),
  }));
};
