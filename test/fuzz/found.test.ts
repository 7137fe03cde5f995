// The requests the fuzzing found (found-requests.ts) on PostgreSQL, which refuses what SQLite
// takes (`in ()` of no ids, a NUL character in text); operations.test.ts sends them on SQLite.
import { after, before, describe, test } from 'node:test';
import { skipWithout } from '../support/postgres.ts';
import { sendFound } from './found-requests.ts';
import { fuzzedGateway, type FuzzedGateway } from './fuzzed-gateway.ts';

describe('requests the fuzzing found (postgres)', { skip: skipWithout('postgres') }, () => {
  let gateway: FuzzedGateway;
  before(async () => {
    gateway = await fuzzedGateway('postgres');
  });
  after(() => gateway?.close());

  test('each is answered as documented, without a 5xx', () => sendFound(gateway));
});
