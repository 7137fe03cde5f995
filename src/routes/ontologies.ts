// Tags: admin (ontology administration).
import type { PassthroughRoute } from '../http/passthrough.js';

export const ontologiesRoutes: PassthroughRoute[] = [
  { method: 'POST', path: '/admin/ontologies', backend: 'metadata', auth: 'admin', tag: 'admin', summary: 'Upload an ontology document' },
  { method: 'GET', path: '/admin/ontologies', backend: 'apps', auth: 'admin', tag: 'admin', summary: 'List ontologies' },
  { method: 'GET', path: '/admin/ontologies/{ontology-version}', backend: 'metadata', backendPath: '/ontologies/{ontology-version}', auth: 'admin', tag: 'admin', summary: 'List the hierarchies of an ontology version' },
  { method: ['POST', 'DELETE'], path: '/admin/ontologies/{ontology-version}', backend: 'apps', auth: 'admin', tag: 'admin', summary: 'Set the active ontology version or delete a version' },
  { method: 'GET', path: '/admin/ontologies/{ontology-version}/{root-iri}', backend: 'apps', auth: 'admin', tag: 'admin', summary: 'Get a hierarchy filtered to classes with apps' },
  { method: ['PUT', 'DELETE'], path: '/admin/ontologies/{ontology-version}/{root-iri}', backend: 'metadata', auth: 'admin', tag: 'admin', summary: 'Save or delete a hierarchy' },
  { method: 'GET', path: '/admin/ontologies/{ontology-version}/{root-iri}/apps', backend: 'apps', auth: 'admin', tag: 'admin', summary: 'List the apps in a hierarchy' },
  { method: 'GET', path: '/admin/ontologies/{ontology-version}/{root-iri}/unclassified', backend: 'apps', auth: 'admin', tag: 'admin', summary: 'List the unclassified apps of a hierarchy' },
];
