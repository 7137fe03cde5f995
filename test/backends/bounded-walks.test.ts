// Walks over stored user data end (no code path recurses without bound on user data): deleting an
// AVU that targets itself (clients may choose AVU ids) finishes instead of looping for ever, and an
// uploaded ontology with a 6,000-class subclass chain is presented cut at maxHierarchyDepth levels
// instead of overflowing the stack (500); an analyses `filter` whose value nests thousands of
// arrays is a 400, not a 500 from String() recursing. On each engine.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { maxHierarchyDepth } from '../../src/backends/metadata/ontology-store.ts';
import { hostEngines, withUser, type BackendHost } from '../support/backend-host.ts';
import { multipartXml } from '../support/ontology-fixture.ts';

const base = 'http://e.org/c';
const chainLength = 6000;

/** An ontology whose classes C0 ⊃ C1 ⊃ … ⊃ C5999 form one chain. */
function chainOntology(): string {
  const classes = Array.from({ length: chainLength }, (_, index) =>
    index === 0
      ? `<owl:Class rdf:about="${base}#C0"><rdfs:label>C0</rdfs:label></owl:Class>`
      : `<owl:Class rdf:about="${base}#C${index}"><rdfs:label>C${index}</rdfs:label><rdfs:subClassOf rdf:resource="${base}#C${index - 1}"/></owl:Class>`,
  );
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:rdfs="http://www.w3.org/2000/01/rdf-schema#" xmlns:owl="http://www.w3.org/2002/07/owl#">',
    `<owl:Ontology rdf:about="${base}"><owl:versionInfo>1</owl:versionInfo></owl:Ontology>`,
    ...classes,
    '</rdf:RDF>',
  ].join('\n');
}

interface Hierarchy {
  iri: string;
  subclasses?: Hierarchy[];
}

/** Levels in a presented tree, counted without recursion. */
function levels(tree: Hierarchy): number {
  let depth = 0;
  for (let node: Hierarchy | undefined = tree; node; node = node.subclasses?.[0]) depth++;
  return depth;
}

for (const engine of hostEngines) {
  describe(`bounded walks over stored data on ${engine.name}`, () => {
    let host: BackendHost | undefined;
    before(async () => {
      host = await engine.open({ names: ['metadata'] });
    });
    after(async () => host?.close());
    const json = { 'content-type': 'application/json' };

    test('an AVU that targets itself is read, and deleted, in bounded time', async (t) => {
      if (!host) return t.skip('DATABASE_URL is not set (CI sets it)');
      const id = '5e1f0000-0000-4000-8000-00000000000a';
      const created = await host.request('POST', withUser(`/metadata/avus/avu/${id}`, 'ada'), {
        headers: json,
        body: JSON.stringify({ avus: [{ id, attr: 'self', value: 'loop' }] }),
      });
      assert.equal(created.status, 200, created.text);
      assert.equal(
        (await host.request('GET', withUser(`/metadata/avus/avu/${id}`, 'ada'))).status,
        200,
      );
      const deleted = await host.request('POST', withUser('/metadata/avus/deleter', 'ada'), {
        headers: json,
        body: JSON.stringify({
          'target-types': ['avu'],
          'target-ids': [id],
          avus: [{ attr: 'self', value: 'loop' }],
        }),
      });
      assert.equal(deleted.status, 200, deleted.text);
      assert.equal(
        (await host.store.db.selectFrom('avus').select('id').where('id', '=', id).execute()).length,
        0,
      );
    });

    test(`a ${chainLength}-class subclass chain is saved and read, cut at ${maxHierarchyDepth} levels`, async (t) => {
      if (!host) return t.skip('DATABASE_URL is not set (CI sets it)');
      const multipart = await multipartXml(chainOntology());
      const uploaded = await host.request('POST', withUser('/metadata/admin/ontologies', 'root'), {
        headers: { 'content-type': multipart.contentType },
        body: multipart.body,
      });
      assert.equal(uploaded.status, 200, uploaded.text.slice(0, 300));
      const version = encodeURIComponent(uploaded.json().version as string);
      const saved = await host.request(
        'PUT',
        withUser(
          `/metadata/admin/ontologies/${version}/${encodeURIComponent(`${base}#C0`)}`,
          'root',
        ),
      );
      assert.equal(saved.status, 200, saved.text.slice(0, 300));
      assert.equal(levels(saved.json().hierarchy), maxHierarchyDepth);
      const read = await host.request('GET', withUser(`/metadata/ontologies/${version}`, 'root'));
      assert.equal(read.status, 200, read.text.slice(0, 300));
      assert.equal(levels(read.json().hierarchies[0]), maxHierarchyDepth);
    });
  });
}

for (const engine of hostEngines) {
  describe(`the analyses filter parameter on ${engine.name}`, () => {
    let host: BackendHost | undefined;
    before(async () => {
      host = await engine.open({ names: ['apps'] });
    });
    after(async () => host?.close());

    test('a value nested 5,000 arrays deep is 400 ERR_BAD_QUERY_PARAMETER; a list of values still filters', async (t) => {
      if (!host) return t.skip('DATABASE_URL is not set (CI sets it)');
      // Brackets unescaped: the URL stays under Node's header size limit.
      const deep = `[{"field":"status","value":${'['.repeat(5000)}${']'.repeat(5000)}}]`;
      const refused = await host.request('GET', withUser(`/apps/analyses?filter=${deep}`, 'ada'));
      assert.equal(refused.status, 400, refused.text.slice(0, 300));
      assert.equal(refused.json().error_code, 'ERR_BAD_QUERY_PARAMETER');
      const listed = await host.request(
        'GET',
        withUser(
          `/apps/analyses?filter=${encodeURIComponent('[{"field":"status","value":["Completed","Failed"]}]')}`,
          'ada',
        ),
      );
      assert.equal(listed.status, 200, listed.text.slice(0, 300));
    });
  });
}
