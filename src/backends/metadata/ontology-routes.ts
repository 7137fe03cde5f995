import { Type } from 'typebox';
import type { MetadataTargetType } from '../../store/schema.ts';
import { targetLists } from './avu-routes.ts';
import {
  classAvus,
  classifiedTargets,
  filterTree,
  irisOf,
  listOntologies,
  loadGraph,
  requireSavedTree,
  savedHierarchies,
} from './ontology-store.ts';
import { bodyObject, stringList, targetTypes, userQuery, type MetadataRoutes } from './requests.ts';
import { requiredParam } from '../../common/query-params.ts';
import { gatewayError } from '../../common/errors.ts';

/**
 * Ontology reads and the filters that classify targets (backends.md §3.6). A target is under a
 * class when it has an AVU (attribute among those named) whose value is the IRI of that class or
 * of any saved class below it. Version ids and root IRIs are path segments, URL-encoded.
 */

const versionParams = Type.Object({ version: Type.String({ minLength: 1 }) });
const rootParams = Type.Object({
  version: Type.String({ minLength: 1 }),
  rootIri: Type.String({ minLength: 1 }),
});
type VersionRequest = { Params: { version: string } };
type RootRequest = { Params: { version: string; rootIri: string } };

/** `{type, id}` of the one-target filter. */
function oneTarget(body: Record<string, unknown>): { type: MetadataTargetType; id: string } {
  const { type, id } = body;
  if (typeof type !== 'string' || !targetTypes.includes(type.toLowerCase() as MetadataTargetType)) {
    throw gatewayError(
      'ERR_BAD_OR_MISSING_FIELD',
      `body field "type" must be one of ${targetTypes.join(', ')}`,
      { field: 'type' },
    );
  }
  if (typeof id !== 'string' || id === '')
    throw gatewayError('ERR_BAD_OR_MISSING_FIELD', 'body field "id" must be a target id', {
      field: 'id',
    });
  return { type: type.toLowerCase() as MetadataTargetType, id: id.toLowerCase() };
}

export const ontologyRoutes: MetadataRoutes = async (app, { db }) => {
  app.get('/ontologies', { schema: { querystring: userQuery } }, async () => ({
    ontologies: await listOntologies(db),
  }));

  app.get<VersionRequest>(
    '/ontologies/:version',
    { schema: { params: versionParams, querystring: userQuery } },
    async (request) => ({
      hierarchies: savedHierarchies(await loadGraph(db, request.params.version)),
    }),
  );

  // The saved hierarchies cut down to the classes one target is attached to.
  app.post<VersionRequest>(
    '/ontologies/:version/filter',
    { schema: { params: versionParams, querystring: userQuery } },
    async (request) => {
      const body = bodyObject(request.body);
      const target = oneTarget(body);
      const attrs = stringList(body, 'attrs');
      const graph = await loadGraph(db, request.params.version);
      const iris = new Set(
        (await classAvus(db, { types: [target.type], ids: [target.id], attrs })).map(
          (row) => row.value,
        ),
      );
      return {
        hierarchies: savedHierarchies(graph)
          .map((tree) => filterTree(tree, iris))
          .filter((tree) => tree !== undefined),
      };
    },
  );

  // Targets attached to a saved class whose label contains `label` (any letter case).
  app.post<VersionRequest>(
    '/ontologies/:version/filter-targets',
    { schema: { params: versionParams, querystring: userQuery } },
    async (request) => {
      const label = requiredParam(request.query, 'label').toLowerCase();
      const body = bodyObject(request.body);
      const { types, ids } = targetLists(body);
      const attrs = stringList(body, 'attrs');
      const graph = await loadGraph(db, request.params.version);
      const iris = new Set(
        [...graph.saved].filter((iri) =>
          graph.classes.get(iri)?.label?.toLowerCase().includes(label),
        ),
      );
      return { 'target-ids': await classifiedTargets(db, { types, ids, attrs, iris }) };
    },
  );

  /** The saved tree under the path's class, the `attr` parameter and the body's targets. */
  const rootFilter = async (request: {
    params: { version: string; rootIri: string };
    query: unknown;
    body: unknown;
  }) => {
    const attr = requiredParam(request.query, 'attr');
    const { types, ids } = targetLists(bodyObject(request.body));
    const tree = requireSavedTree(
      await loadGraph(db, request.params.version),
      request.params.rootIri,
    );
    return { tree, query: { types, ids, attrs: [attr] } };
  };

  app.post<RootRequest>(
    '/ontologies/:version/:rootIri/filter',
    { schema: { params: rootParams, querystring: userQuery } },
    async (request) => {
      const { tree, query } = await rootFilter(request);
      const iris = new Set(
        (await classAvus(db, { ...query, iris: irisOf(tree) })).map((row) => row.value),
      );
      return { hierarchy: filterTree(tree, iris) ?? null };
    },
  );

  app.post<RootRequest>(
    '/ontologies/:version/:rootIri/filter-targets',
    { schema: { params: rootParams, querystring: userQuery } },
    async (request) => {
      const { tree, query } = await rootFilter(request);
      return { 'target-ids': await classifiedTargets(db, { ...query, iris: irisOf(tree) }) };
    },
  );

  app.post<RootRequest>(
    '/ontologies/:version/:rootIri/filter-unclassified',
    { schema: { params: rootParams, querystring: userQuery } },
    async (request) => {
      const { tree, query } = await rootFilter(request);
      const classified = new Set(await classifiedTargets(db, { ...query, iris: irisOf(tree) }));
      return { 'target-ids': [...new Set(query.ids)].filter((id) => !classified.has(id)) };
    },
  );
};
