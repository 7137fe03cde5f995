// Tag misc: session data (user-info) and the login history (apps), per user.
import { Type } from 'typebox';
import { anyTypeAsJson, type PassthroughRoute } from '../../http/passthrough.ts';
import type { Tag } from '../shared/tags.ts';

export const sessionPassthroughs: PassthroughRoute<Tag>[] = [
  {
    method: ['GET', 'DELETE'],
    path: '/secured/sessions',
    backend: 'user-info',
    backendPath: '/sessions/{qualified-user}',
    tag: 'misc',
    summary: 'Get (`{}` when none) or delete session data',
  },
  {
    method: 'POST',
    path: '/secured/sessions',
    backend: 'user-info',
    backendPath: '/sessions/{qualified-user}',
    tag: 'misc',
    summary: 'Store session data: any JSON document, returned as given by GET',
    consumes: anyTypeAsJson,
    // Streamed, so the document is kept byte for byte (a parse and re-serialise would round big numbers).
    streamedBody: Type.Unknown({ description: 'Any JSON document' }),
  },
  {
    method: 'GET',
    path: '/secured/logins',
    backend: 'apps',
    backendPath: '/users/logins',
    tag: 'misc',
    summary: "The caller's recent logins",
    query: Type.Object({ limit: Type.Integer({ minimum: 1, maximum: 1000 }) }),
  },
];
