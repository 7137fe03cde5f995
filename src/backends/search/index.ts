import { requireUserParam } from '../../common/query-params.ts';
import { documented } from './documented.ts';
import { openSharedDataStore } from '../data-info/index.ts';
import type { EmbeddedService } from '../service.ts';
import { searchDocumentation } from './documentation.ts';
import { readSearchRequest } from './request.ts';
import { search } from './search.ts';

/**
 * The search service (routes.md §26, backends.md "search"): `GET /data/documentation` and
 * `POST /data/search`, the DE search service's query language over the data store's catalog,
 * answered from the database's own full-text index of names (migration 026) and the metadata
 * service's AVUs and tags. It reads the data store through data-info's door and the metadata
 * tables through metadata's.
 */
export const searchService: EmbeddedService = {
  name: 'search',
  documented,
  plugin: async (app, { store, config }) => {
    const data = await openSharedDataStore(store.db, { ...config.dataStore });

    app.get('/data/documentation', async () => searchDocumentation());

    app.post('/data/search', async (request) => {
      const user = requireUserParam(request.query);
      const wanted = readSearchRequest(request.body);
      return search(data, await data.caller(user), wanted);
    });
  },
};
