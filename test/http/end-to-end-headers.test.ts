// Which headers cross the gateway (src/http/end-to-end-headers.ts): the one-pass copy of an
// answer's raw header list gives what parsing it with undici and copying the end-to-end headers
// gave — hop-by-hop and Connection-named headers left out, repeats as arrays, names in lower case.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { util } from 'undici';
import { endToEndHeaders, endToEndRawHeaders } from '../../src/http/end-to-end-headers.ts';

const raw = (...pairs: string[]) => pairs.map((text) => Buffer.from(text, 'latin1'));

const answers: Record<string, Buffer[]> = {
  usual: raw(
    'Content-Type',
    'application/json',
    'Content-Length',
    '12',
    'Date',
    'Thu, 26 Nov 2026 15:00:00 GMT',
    'Connection',
    'keep-alive',
    'Keep-Alive',
    'timeout=5',
  ),
  repeats: raw(
    'Set-Cookie',
    'a=1',
    'set-cookie',
    'b=2',
    'X-Multi',
    'one',
    'x-multi',
    'two',
    'X-Multi',
    'three',
    'Vary',
    'accept',
  ),
  'connection-named': raw(
    'Connection',
    'X-Private, Close',
    'X-Private',
    'secret',
    'x-public',
    'shown',
    'Transfer-Encoding',
    'chunked',
    'Trailer',
    'x-checksum',
    'Upgrade',
    'h2c',
  ),
  'two connection headers': raw(
    'Connection',
    'x-one',
    'x-one',
    '1',
    'Connection',
    'X-Two',
    'x-two',
    '2',
    'x-three',
    '3',
  ),
  'object-prototype names': raw(
    'Constructor',
    'c',
    'toString',
    't',
    'constructor',
    'd',
    '__proto__',
    'p',
    'hasOwnProperty',
    'h',
  ),
  'latin1 value': raw('X-Name', 'caf\u00e9'),
  none: [],
};

describe('endToEndRawHeaders', () => {
  for (const [name, list] of Object.entries(answers))
    test(`${name}: as undici's parseHeaders then endToEndHeaders`, () => {
      const oneStep = endToEndRawHeaders(list, util.headerNameToString);
      const twoSteps = endToEndHeaders(util.parseHeaders(list));
      assert.deepEqual(oneStep, twoSteps);
      assert.deepEqual(Object.keys(oneStep), Object.keys(twoSteps));
    });

  test('leaves out hop-by-hop headers and those the Connection header names', () => {
    assert.deepEqual(endToEndRawHeaders(answers['connection-named']!, util.headerNameToString), {
      'x-public': 'shown',
    });
    assert.deepEqual(endToEndRawHeaders(answers.repeats!, util.headerNameToString), {
      'set-cookie': ['a=1', 'b=2'],
      'x-multi': ['one', 'two', 'three'],
      vary: 'accept',
    });
  });
});
