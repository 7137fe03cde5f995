// The requests the fuzzing (operations.test.ts) found answered against the OpenAPI document or
// with a 5xx, kept as they were found, and the check that each is answered as documented now.
import assert from 'node:assert/strict';
import { fault, type FuzzedGateway } from './fuzzed-gateway.ts';
import type { FuzzRequest } from './requests.ts';

/** Requests the fuzzing found answered against the document, kept as they were found. */
export const found: { request: FuzzRequest; why: string }[] = [
  {
    why: 'bag contents are any JSON object, not the fields the tests had sent',
    request: {
      method: 'POST',
      url: '/bags/default?unknown-parameter=%FF',
      headers: { 'content-type': 'application/json; charset=utf-8' },
      payload: '{"files":[],"a":""}',
      caller: 'user',
    },
  },
  {
    why: "a tool request's optional fields are not answered when not given",
    request: {
      method: 'POST',
      url: '/tool-requests',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({
        name: 'zargument',
        description: '{unb_8MMc',
        source_url: '$4U(G[=z6<',
        version: 'bl-mVD;+',
        multithreaded: true,
        test_data_path: '$@*`G9)\\',
        cmd_line: '&!',
        source_upload_file: 'na',
      }),
      caller: 'user',
    },
  },
  {
    why: 'the user-info service reads a body of any type as JSON',
    request: {
      method: 'POST',
      url: '/secured/sessions',
      headers: { 'content-type': 'multipart/form-data; boundary=x' },
      payload: '{"ref":5e-323}',
      caller: 'admin',
    },
  },
  {
    why: 'so does a saved search',
    request: {
      method: 'POST',
      url: '/secured/saved-searches',
      headers: { 'content-type': 'text/plain' },
      payload: '[["b``%q1",true]]',
      caller: 'user',
    },
  },
  {
    why: 'and a mark-all route',
    request: {
      method: 'POST',
      url: '/secured/notifications/system/mark-all-seen?unknown-parameter=%zz',
      headers: { 'content-type': 'application/xml' },
      payload: '{"sJ":-1.8936875182307667e+279}',
      caller: 'admin',
    },
  },
  {
    why: 'a HEAD answer (404: no bags) has no body to judge',
    request: { method: 'HEAD', url: '/bags', headers: {}, caller: 'user' },
  },
  {
    why: 'sharing, unsharing or listing no item at all queries nothing (PostgreSQL refuses `in ()`)',
    request: {
      method: 'POST',
      url: '/analyses/unsharing',
      headers: { 'content-type': 'application/json; charset=utf-8' },
      payload: '{"unsharing":[]}',
      caller: 'user',
    },
  },
  {
    why: 'an empty permission listing',
    request: {
      method: 'POST',
      url: '/apps/permission-lister',
      headers: { 'content-type': 'application/json' },
      payload: '{"apps":[]}',
      caller: 'user',
    },
  },
  {
    why: 'an empty sharing of tools',
    request: {
      method: 'POST',
      url: '/tools/sharing',
      headers: { 'content-type': 'application/json' },
      payload: '{"sharing":[]}',
      caller: 'user',
    },
  },
  {
    why: 'a NUL character PostgreSQL cannot store is the request at fault: 400',
    request: {
      method: 'PUT',
      url: '/apps/a%00b/j%25/favorite',
      headers: { 'content-type': 'application/json' },
      payload: '{}',
      caller: 'user',
    },
  },
];

/** Sends every request of `found`, failing on a 5xx or an answer the document does not give. */
export async function sendFound(gateway: FuzzedGateway): Promise<void> {
  for (const { request, why } of found) {
    const [path, operation] = Object.entries(gateway.document.paths)
      .map(([path, methods]) => [path, methods[request.method.toLowerCase()]] as const)
      .find(
        ([path, operation]) =>
          operation !== undefined &&
          new RegExp(`^${path.replace(/\{[^}]+\}/g, '[^/]+')}$`).test(request.url.split('?')[0]!),
      )!;
    const answer = await gateway.send(request);
    assert.ok(answer.statusCode < 500, `${why}: ${answer.statusCode} ${answer.body}`);
    assert.equal(fault(request.method, path, operation!, answer), undefined, why);
  }
}
