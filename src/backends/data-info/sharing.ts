import type { FastifyPluginAsync } from 'fastify';
import type { DataStore } from './store.js';

// TODO(issue 4): routes of backends.md §2.1 for this area.
export const sharingRoutes: FastifyPluginAsync<{ data: DataStore }> = async (_app, _options) => {};
