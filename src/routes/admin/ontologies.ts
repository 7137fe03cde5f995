// Tag admin: ontology administration (routes.md §9), all passthroughs; the schemas document what
// the backends answer (the hierarchy shapes are the apps area's, which lists them for users).
import { Type } from 'typebox';
import type { PassthroughRoute } from '../../http/passthrough.ts';
import {
  Hierarchies,
  hierarchyErrors,
  Hierarchy,
  hierarchyAttrQuery,
  hierarchyListing,
  OntologyClassHierarchy,
} from '../apps/schemas.ts';
import type { Tag } from '../shared/tags.ts';

const OntologyDetails = Type.Object({
  iri: Type.String({ description: "The ontology's IRI" }),
  version: Type.String({ description: 'Version id given at upload (URL-encode it in paths)' }),
  created_by: Type.String(),
  created_on: Type.Integer({ description: 'Milliseconds since the epoch' }),
});

/** Documents the multipart upload; `nullable` because the gateway streams the body unread (null to the validator). */
const OntologyUpload = Type.Unsafe({
  type: 'object',
  nullable: true,
  description:
    'multipart/form-data with one part named `ontology-xml`: an OWL ontology in RDF/XML, streamed to the metadata service',
  properties: { 'ontology-xml': { type: 'string', format: 'binary' } },
  required: ['ontology-xml'],
});

const version = '/admin/ontologies/{ontology-version}';
const root = `${version}/{root-iri}`;

export const ontologyPassthroughs: PassthroughRoute<Tag>[] = [
  {
    method: 'POST',
    path: '/admin/ontologies',
    backend: 'metadata',
    auth: 'admin',
    tag: 'admin',
    summary: 'Upload an ontology document',
    consumes: ['multipart/form-data'],
    streamedBody: OntologyUpload,
    responses: { 200: OntologyDetails, ...hierarchyErrors },
  },
  {
    method: 'GET',
    path: '/admin/ontologies',
    backend: 'apps',
    auth: 'admin',
    tag: 'admin',
    summary: 'List ontologies',
    responses: {
      200: Type.Object({
        ontologies: Type.Array(
          Type.Object({ ...OntologyDetails.properties, active: Type.Boolean() }),
        ),
      }),
    },
  },
  {
    method: 'GET',
    path: version,
    backend: 'metadata',
    backendPath: '/ontologies/{ontology-version}',
    auth: 'admin',
    tag: 'admin',
    summary: 'List the hierarchies of an ontology version',
    responses: { 200: Hierarchies, ...hierarchyErrors },
  },
  {
    method: 'POST',
    path: version,
    backend: 'apps',
    auth: 'admin',
    tag: 'admin',
    summary: 'Make an ontology version the active one',
    responses: {
      200: Type.Object({
        version: Type.String(),
        applied_by: Type.String(),
        applied: Type.Integer(),
      }),
      ...hierarchyErrors,
    },
  },
  {
    method: 'DELETE',
    path: version,
    backend: 'apps',
    auth: 'admin',
    tag: 'admin',
    summary: 'Delete an ontology version (not the active one)',
    responses: {
      200: Type.Null({ description: 'Empty: the version is no longer listed' }),
      ...hierarchyErrors,
    },
  },
  {
    method: 'GET',
    path: root,
    backend: 'apps',
    auth: 'admin',
    tag: 'admin',
    summary: 'Preview a hierarchy filtered to classes with apps',
    query: hierarchyAttrQuery,
    responses: { 200: Hierarchy, ...hierarchyErrors },
  },
  {
    method: 'PUT',
    path: root,
    backend: 'metadata',
    auth: 'admin',
    tag: 'admin',
    summary: 'Save the hierarchy under a class',
    responses: { 200: Type.Object({ hierarchy: OntologyClassHierarchy }), ...hierarchyErrors },
  },
  {
    method: 'DELETE',
    path: root,
    backend: 'metadata',
    auth: 'admin',
    tag: 'admin',
    summary: 'Delete the saved classes under a class',
    responses: { 200: Hierarchies, ...hierarchyErrors },
  },
  {
    method: 'GET',
    path: `${root}/apps`,
    backend: 'apps',
    auth: 'admin',
    tag: 'admin',
    summary: 'List the apps in a hierarchy',
    ...hierarchyListing,
  },
  {
    method: 'GET',
    path: `${root}/unclassified`,
    backend: 'apps',
    auth: 'admin',
    tag: 'admin',
    summary: 'List the unclassified apps of a hierarchy',
    ...hierarchyListing,
  },
];
