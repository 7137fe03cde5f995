// The permission levels of a paged listing's entries, on each engine: in a folder the caller owns,
// every child is `own` and no grant of a child is looked up (nothing could be stronger); in a
// folder shared with the caller for reading, a child keeps a stronger grant of its own (`write`)
// and the others show the folder's `read`, from one lookup of the page's grants.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Lister } from '../../../src/backends/data-info/listing.ts';
import { visibilityOf } from '../../../src/backends/data-info/visibility.ts';
import { engines, home, type DataInfoHost } from '../../support/data-info-host.ts';
import { listPage } from '../../support/listing-order.ts';

for (const engine of engines) {
  describe(`paged listing levels on ${engine.name}`, () => {
    let service: DataInfoHost | undefined;
    const own = `${home('alice')}/mine`;
    const shared = `${home('bob')}/shared`;

    before(async () => {
      service = await engine.open();
      if (!service) return;
      await service.folder('alice', own);
      await service.file('alice', `${own}/a.txt`, 'a');
      await service.file('alice', `${own}/b.txt`, 'b');
      await service.folder('bob', shared);
      await service.file('bob', `${shared}/read-only.txt`, 'r');
      await service.file('bob', `${shared}/writable.txt`, 'w');
      await service.grant(shared, 'alice', 'read');
      await service.grant(`${shared}/writable.txt`, 'alice', 'write');
    });
    after(async () => service?.close());

    const cases = [
      {
        name: 'an owned folder: every child own, without looking up their grants',
        folder: own,
        expected: {
          folder: 'own',
          entries: [
            ['a.txt', 'own'],
            ['b.txt', 'own'],
          ],
        },
        lookups: 0,
      },
      {
        name: "a folder shared for reading: a child's stronger grant shows",
        folder: shared,
        expected: {
          folder: 'read',
          entries: [
            ['read-only.txt', 'read'],
            ['writable.txt', 'write'],
          ],
        },
        lookups: 1,
      },
    ];
    for (const { name, folder, expected, lookups } of cases) {
      test(name, async (t) => {
        if (!service) return t.skip('DATABASE_URL is not set (CI sets it)');
        const grants = t.mock.method(visibilityOf(service.data), 'directGrants');
        const page = await listPage(service, new Lister(service.data), folder, {
          field: 'name',
          dir: 'ASC',
          offset: 0,
        });
        assert.deepEqual(
          {
            folder: page.permission,
            entries: page.files.map((entry) => [entry.name, entry.permission]),
          },
          expected,
        );
        assert.equal(grants.mock.callCount(), lookups, 'grant lookups');
      });
    }
  });
}
