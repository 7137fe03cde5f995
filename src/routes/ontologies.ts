// Tags: admin (ontology administration, routes.md §9) and app-hierarchies (the `/apps/hierarchies`
// rows of §16). All are passthroughs; the schemas document what the backends answer.
import { Type } from 'typebox';
import type { PassthroughRoute } from '../http/passthrough.js';
import { AppListing, ErrorAnswer, listingParameters } from './app-schemas.js';

const OntologyDetails = Type.Object({
  iri: Type.String({ description: "The ontology's IRI" }),
  version: Type.String({ description: 'Version id given at upload (URL-encode it in paths)' }),
  created_by: Type.String(),
  created_on: Type.Integer({ description: 'Milliseconds since the epoch' }),
});

const OntologyClassHierarchy = Type.Object({
  iri: Type.String(),
  label: Type.Union([Type.String(), Type.Null()]),
  description: Type.Optional(Type.String()),
  subclasses: Type.Optional(
    Type.Array(Type.Unknown(), {
      description: 'OntologyClassHierarchy objects, nested the same way',
    }),
  ),
});

const Hierarchy = Type.Object({
  hierarchy: Type.Union([OntologyClassHierarchy, Type.Null()], {
    description: 'null when no class of it has apps',
  }),
});
const Hierarchies = Type.Object({ hierarchies: Type.Array(OntologyClassHierarchy) });
const errors = { 400: ErrorAnswer, 404: ErrorAnswer };

const attrQuery = Type.Object(
  {
    attr: Type.String({
      minLength: 1,
      description: 'The AVU attribute whose values are class IRIs',
    }),
  },
  { additionalProperties: true },
);
const listingQuery = Type.Object(
  {
    attr: Type.String({
      minLength: 1,
      description: 'The AVU attribute whose values are class IRIs',
    }),
    ...listingParameters,
  },
  { additionalProperties: true },
);
const listing = { query: listingQuery, responses: { 200: AppListing, ...errors } };

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

export const ontologiesRoutes: PassthroughRoute[] = [
  {
    method: 'POST',
    path: '/admin/ontologies',
    backend: 'metadata',
    auth: 'admin',
    tag: 'admin',
    summary: 'Upload an ontology document',
    consumes: ['multipart/form-data'],
    streamedBody: OntologyUpload,
    responses: { 200: OntologyDetails, ...errors },
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
    responses: { 200: Hierarchies, ...errors },
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
      ...errors,
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
      ...errors,
    },
  },
  {
    method: 'GET',
    path: root,
    backend: 'apps',
    auth: 'admin',
    tag: 'admin',
    summary: 'Preview a hierarchy filtered to classes with apps',
    query: attrQuery,
    responses: { 200: Hierarchy, ...errors },
  },
  {
    method: 'PUT',
    path: root,
    backend: 'metadata',
    auth: 'admin',
    tag: 'admin',
    summary: 'Save the hierarchy under a class',
    responses: { 200: Type.Object({ hierarchy: OntologyClassHierarchy }), ...errors },
  },
  {
    method: 'DELETE',
    path: root,
    backend: 'metadata',
    auth: 'admin',
    tag: 'admin',
    summary: 'Delete the saved classes under a class',
    responses: { 200: Hierarchies, ...errors },
  },
  {
    method: 'GET',
    path: `${root}/apps`,
    backend: 'apps',
    auth: 'admin',
    tag: 'admin',
    summary: 'List the apps in a hierarchy',
    ...listing,
  },
  {
    method: 'GET',
    path: `${root}/unclassified`,
    backend: 'apps',
    auth: 'admin',
    tag: 'admin',
    summary: 'List the unclassified apps of a hierarchy',
    ...listing,
  },

  {
    method: 'GET',
    path: '/apps/hierarchies',
    backend: 'apps',
    tag: 'app-hierarchies',
    summary: 'List app hierarchies (active ontology version)',
    responses: { 200: Hierarchies },
  },
  {
    method: 'GET',
    path: '/apps/hierarchies/{root-iri}',
    backend: 'apps',
    tag: 'app-hierarchies',
    summary: 'Get an app hierarchy filtered to classes with apps',
    query: attrQuery,
    responses: { 200: Hierarchy, ...errors },
  },
  {
    method: 'GET',
    path: '/apps/hierarchies/{root-iri}/apps',
    backend: 'apps',
    tag: 'app-hierarchies',
    summary: 'List the apps in a hierarchy',
    ...listing,
  },
  {
    method: 'GET',
    path: '/apps/hierarchies/{root-iri}/unclassified',
    backend: 'apps',
    tag: 'app-hierarchies',
    summary: 'List the unclassified apps of a hierarchy',
    ...listing,
  },
];
