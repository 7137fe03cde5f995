import type { EmbeddedService } from '../service.js';
import { requireUserParam } from '../service.js';
import { basePaths } from './paths.js';

/** The data-info service (backends.md §2). */
export const dataInfoService: EmbeddedService = {
  name: 'data-info',
  plugin: async (app, { config }) => {
    app.get('/navigation/base-paths', async (request) => basePaths(config.dataStore.zone, requireUserParam(request.query)));
  },
};
