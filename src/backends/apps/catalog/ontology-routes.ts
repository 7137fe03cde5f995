import type { FastifyPluginAsync } from 'fastify';
import type { Kysely } from 'kysely';
import { Type } from 'typebox';
import type { Database } from '../../../store/schema.ts';
import {
  listOntologies,
  loadGraph,
  markOntologyDeleted,
  requireOntology,
  savedHierarchies,
} from '../../metadata/index.ts';
import { requiredParam, requireUserParam } from '../../../common/query-params.ts';
import { hierarchyWithApps } from './ontology-classification.ts';
import { gatewayError } from '../../../common/errors.ts';

/**
 * The apps service's side of ontologies (backends.md §5.5): the active version, the version list
 * with it marked, previews of any version for administrators, and the hierarchies regular users
 * see, which always come from the active version.
 */

type Db = Kysely<Database>;

/** The active version: the latest applied one that still exists (undefined when there is none). */
export async function activeOntologyVersion(db: Db): Promise<string | undefined> {
  const row = await db
    .selectFrom('app_hierarchy_version')
    .innerJoin('ontologies', 'ontologies.version', 'app_hierarchy_version.version')
    .select('app_hierarchy_version.version')
    .where('ontologies.deleted', '=', false)
    .orderBy('app_hierarchy_version.position', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row?.version;
}

/** Appends to the log; the position decides, so two activations in one millisecond still have an order. */
async function activate(db: Db, version: string, user: string, time: number): Promise<void> {
  for (let attempt = 0; ; attempt += 1) {
    try {
      await db.transaction().execute(async (trx) => {
        const last = await trx
          .selectFrom('app_hierarchy_version')
          .select((eb) => eb.fn.max('position').as('position'))
          .executeTakeFirst();
        await trx
          .insertInto('app_hierarchy_version')
          .values({
            position: Number(last?.position ?? 0) + 1,
            version,
            applied_by: user,
            applied: time,
          })
          .execute();
      });
      return;
    } catch (error) {
      // A concurrent activation took the position: read the new last one and go again.
      if (attempt >= 4) throw error;
    }
  }
}

const versionParams = Type.Object({ version: Type.String({ minLength: 1 }) });
const rootParams = Type.Object({
  version: Type.String({ minLength: 1 }),
  rootIri: Type.String({ minLength: 1 }),
});
const userQuery = Type.Object(
  { user: Type.String({ minLength: 1 }) },
  { additionalProperties: true },
);
type VersionRequest = { Params: { version: string } };
type RootRequest = { Params: { version: string; rootIri: string } };
type UserRootRequest = { Params: { rootIri: string } };

export const appsOntologyRoutes: FastifyPluginAsync<{ db: Db; now: () => number }> = async (
  app,
  { db, now },
) => {
  app.get('/admin/ontologies', { schema: { querystring: userQuery } }, async (request) => {
    requireUserParam(request.query);
    const active = await activeOntologyVersion(db);
    return {
      ontologies: (await listOntologies(db)).map((ontology) => ({
        ...ontology,
        active: ontology.version === active,
      })),
    };
  });

  app.post<VersionRequest>(
    '/admin/ontologies/:version',
    { schema: { params: versionParams, querystring: userQuery } },
    async (request) => {
      const user = requireUserParam(request.query);
      const { version } = await requireOntology(db, request.params.version);
      const applied = now();
      await activate(db, version, user, applied);
      return { version, applied_by: user, applied };
    },
  );

  app.delete<VersionRequest>(
    '/admin/ontologies/:version',
    { schema: { params: versionParams, querystring: userQuery } },
    async (request, reply) => {
      requireUserParam(request.query);
      const { version } = await requireOntology(db, request.params.version);
      if (version === (await activeOntologyVersion(db))) {
        throw gatewayError(
          'ERR_ILLEGAL_ARGUMENT',
          'the active ontology version cannot be deleted; make another version active first',
          { version },
        );
      }
      await markOntologyDeleted(db, version);
      return reply.code(200).send();
    },
  );

  // A preview of any version, without changing which one users see.
  app.get<RootRequest>(
    '/admin/ontologies/:version/:rootIri',
    { schema: { params: rootParams, querystring: userQuery } },
    async (request) => {
      const user = requireUserParam(request.query);
      const { version, rootIri } = request.params;
      return {
        hierarchy: await hierarchyWithApps(db, {
          version,
          rootIri,
          attr: requiredParam(request.query, 'attr'),
          user,
        }),
      };
    },
  );

  app.get('/apps/hierarchies', { schema: { querystring: userQuery } }, async (request) => {
    requireUserParam(request.query);
    const version = await activeOntologyVersion(db);
    return {
      hierarchies: version === undefined ? [] : savedHierarchies(await loadGraph(db, version)),
    };
  });

  app.get<UserRootRequest>(
    '/apps/hierarchies/:rootIri',
    {
      schema: {
        params: Type.Object({ rootIri: Type.String({ minLength: 1 }) }),
        querystring: userQuery,
      },
    },
    async (request) => {
      const user = requireUserParam(request.query);
      const attr = requiredParam(request.query, 'attr');
      const version = await activeOntologyVersion(db);
      if (version === undefined)
        throw gatewayError('ERR_NOT_FOUND', 'no ontology version is active', {
          iri: request.params.rootIri,
        });
      return {
        hierarchy: await hierarchyWithApps(db, {
          version,
          rootIri: request.params.rootIri,
          attr,
          user,
        }),
      };
    },
  );
};
