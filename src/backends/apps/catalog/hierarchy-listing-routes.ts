// App listings under ontology hierarchies (routes.md §9, §16; backends.md §5.5): the apps attached
// (AVU `attr` = a class IRI) to the root or any saved class below it, and the apps attached to none
// of them. Users list against the active version; administrators preview any version. Either way
// the listing is the caller's catalog (public apps and their own), paged, searched and sorted like
// GET /apps.
import type { FastifyPluginAsync } from 'fastify';
import { sql, type Kysely } from 'kysely';
import { Type } from 'typebox';
import type { Database } from '../../../store/schema.ts';
import { userQuery } from '../../metadata/index.ts';
import { requiredParam } from '../../../common/query-params.ts';
import { listApps, type visibleAppsQuery } from './app-listings.ts';
import { listingQuery } from './app-listing-routes.ts';
import { activeOntologyVersion } from './ontology-routes.ts';
import { appsUnderClass } from './ontology-classification.ts';
import { shortUser } from '../shared/index.ts';
import { gatewayError } from '../../../common/errors.ts';

type Apps = ReturnType<typeof visibleAppsQuery>;
type Which = 'apps' | 'unclassified';

const rootParams = Type.Object({ rootIri: Type.String({ minLength: 1 }) });
const versionRootParams = Type.Object({
  version: Type.String({ minLength: 1 }),
  rootIri: Type.String({ minLength: 1 }),
});

export const hierarchyListingRoutes: FastifyPluginAsync<{ db: Kysely<Database> }> = async (
  app,
  { db },
) => {
  const listing = async (query: unknown, version: string, rootIri: string, which: Which) => {
    const user = shortUser(query);
    const attr = requiredParam(query, 'attr');
    const paging = listingQuery(query);
    const classified = await appsUnderClass(db, { version, rootIri, attr });
    const restrict =
      which === 'apps'
        ? (apps: Apps) =>
            classified.length === 0
              ? apps.where(sql<boolean>`1 = 0`)
              : apps.where('apps.id', 'in', classified)
        : (apps: Apps) =>
            classified.length === 0 ? apps : apps.where('apps.id', 'not in', classified);
    return listApps(db, user, paging, restrict);
  };

  for (const which of ['apps', 'unclassified'] as const) {
    app.get<{ Params: { rootIri: string } }>(
      `/apps/hierarchies/:rootIri/${which}`,
      { schema: { params: rootParams, querystring: userQuery } },
      async (request) => {
        const version = await activeOntologyVersion(db);
        if (version === undefined)
          throw gatewayError('ERR_NOT_FOUND', 'no ontology version is active', {
            iri: request.params.rootIri,
          });
        return listing(request.query, version, request.params.rootIri, which);
      },
    );

    // A preview of any version, without changing which one users see.
    app.get<{ Params: { version: string; rootIri: string } }>(
      `/admin/ontologies/:version/:rootIri/${which}`,
      { schema: { params: versionRootParams, querystring: userQuery } },
      async (request) =>
        listing(request.query, request.params.version, request.params.rootIri, which),
    );
  }
};
