// Tags: tags.
import type { PassthroughRoute } from '../http/passthrough.js';

export const dataTagsRoutes: PassthroughRoute[] = [
  { method: ['GET', 'DELETE'], path: '/secured/filesystem/entry/tags', backend: 'metadata', backendPath: '/filesystem/data/tags', tag: 'tags', summary: 'List or detach all tags the user attached' },
  { method: 'GET', path: '/secured/tags/suggestions', backend: 'metadata', backendPath: '/tags/suggestions', tag: 'tags', summary: 'Suggest tags' },
  { method: 'GET', path: '/secured/tags/user', backend: 'metadata', backendPath: '/tags/user', tag: 'tags', summary: "List the user's tags" },
];
