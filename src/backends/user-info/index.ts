import { depthCheckedText } from '../../common/json-depth.ts';
import { documented } from './documented.ts';
import type { EmbeddedService } from '../service.ts';
import { registerAlertRoutes } from './alert-routes.ts';
import { registerBagRoutes } from './bag-routes.ts';
import { registerDocumentRoutes } from './document-routes.ts';
import { registerFeedRoutes } from './feed-routes.ts';

// The user-info service's door: the service itself, for the embedded host; nothing else of it
// is for other parts of the project.

/**
 * The user-info service (backends.md §7): preferences, sessions and saved searches per user
 * (`{username}` is qualified), bags, global alerts and the dashboard's feeds. Bodies are read as text so a document is
 * stored exactly as the client sent it, whatever content type it came with.
 */
export const userInfoService: EmbeddedService = {
  name: 'user-info',
  documented,
  plugin: async (app, { store, config }) => {
    app.removeAllContentTypeParsers();
    app.addContentTypeParser('*', { parseAs: 'string' }, depthCheckedText(config.jsonMaxDepth));

    registerDocumentRoutes(app, store, {
      segment: 'preferences',
      table: 'user_preferences',
      column: 'preferences',
      key: 'preferences',
      objectOnly: true,
      unwrapOnRead: true,
    });
    registerDocumentRoutes(app, store, {
      segment: 'sessions',
      table: 'user_sessions',
      column: 'session',
      key: 'session',
      objectOnly: false,
      unwrapOnRead: false,
    });
    registerDocumentRoutes(app, store, {
      segment: 'searches',
      table: 'user_saved_searches',
      column: 'saved_searches',
      key: 'saved_searches',
      objectOnly: false,
      unwrapOnRead: false,
    });
    registerBagRoutes(app, store, config.uidDomain);
    registerAlertRoutes(app, store);
    registerFeedRoutes(app, store);
  },
};
