/**
 * `npm run bench:scale-queries`: the data routes' own code, timed in this process (no HTTP, no
 * load generator), at the sizes of `npm run bench:scale` and on the data bench/scale-seed.ts
 * writes: data-info's paged listing (first, middle and last page by name, a middle page by path
 * and by date modified; the middle and last page by name also as a first visit, before any page
 * has left a mark) and the data search (a common word hitting n/7 items, first 100, by name
 * and by date modified; a rare term). Each case runs QUERY_RUNS times (15) after two warm-ups;
 * the median and the slowest are reported in ms. A quick check of one change on a shared machine,
 * where the full benchmark is too heavy to repeat.
 *
 * SQLite in a data directory of its own, PostgreSQL (when DATABASE_URL is set) in a schema of its
 * own (`scale_queries_<n>`); both are kept between runs (seeded once, under
 * QUERY_DIR, default `<tmpdir>/scale-queries`) so that a change can be timed before and after on
 * the same rows; QUERY_FRESH=1 seeds again. Settings: SCALE_SIZES (1000,10000,100000),
 * SCALE_ENGINES (sqlite,postgres), QUERY_RUNS (15).
 */
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { openSharedDataStore } from '../src/backends/data-info/index.ts';
import { Lister, type ListingOptions } from '../src/backends/data-info/listing.ts';
import { visibilityOf } from '../src/backends/data-info/visibility.ts';
import { readSearchRequest } from '../src/backends/search/request.ts';
import { search } from '../src/backends/search/search.ts';
import { loadConfig } from '../src/config/index.ts';
import { openStore } from '../src/store/database.ts';
import { seed, user } from './scale-seed.ts';

const sizes = (process.env.SCALE_SIZES ?? '1000,10000,100000').split(',').map(Number);
const engines = (process.env.SCALE_ENGINES ?? 'sqlite,postgres').split(',');
const runs = Number(process.env.QUERY_RUNS ?? 15);
const dir = process.env.QUERY_DIR ?? path.join(tmpdir(), 'scale-queries');
const fresh = process.env.QUERY_FRESH === '1';

async function schemaUrl(base: string, schema: string, recreate: boolean): Promise<string> {
  const client = new pg.Client({ connectionString: base });
  await client.connect();
  try {
    if (recreate) await client.query(`drop schema if exists ${schema} cascade`);
    await client.query(`create schema if not exists ${schema}`);
  } finally {
    await client.end();
  }
  const url = new URL(base);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return url.toString();
}

async function timed(run: () => Promise<unknown>): Promise<{ p50: number; max: number }> {
  await run();
  await run();
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    await run();
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return { p50: times[Math.floor(times.length / 2)]!, max: times[times.length - 1]! };
}

async function measure(engine: string, n: number): Promise<Map<string, string>> {
  const dataDir = path.join(dir, `${engine}-${n}`);
  const marker = path.join(dataDir, 'seeded');
  const reseed = fresh || !existsSync(marker);
  let databaseUrl: string | undefined;
  if (engine === 'postgres') {
    if (!process.env.DATABASE_URL) throw new Error('PostgreSQL needs DATABASE_URL');
    databaseUrl = await schemaUrl(process.env.DATABASE_URL, `scale_queries_${n}`, reseed);
  }
  let folder = `/${loadConfig({ GATEWAY_DATA_DIR: dataDir }).dataStore.zone}/home/${user}/items`;
  if (reseed) {
    rmSync(dataDir, { recursive: true, force: true });
    mkdirSync(dataDir, { recursive: true });
    const seeded = await seed(dataDir, databaseUrl, n);
    folder = seeded.folder;
    writeFileSync(marker, folder);
    console.error(`${engine} ${n}: seeded in ${seeded.seedSeconds.toFixed(1)} s`);
  }
  const store = await openStore({ dataDir, databaseUrl });
  const figures = new Map<string, string>();
  try {
    const { dataStore } = loadConfig({ GATEWAY_DATA_DIR: dataDir });
    const data = await openSharedDataStore(store.db, dataStore);
    const caller = await data.caller(user);
    const lister = new Lister(data);
    const object = await data.existing(folder);
    const access = await visibilityOf(data).requireRead(caller, object);
    // One lister for the run, as data-info keeps one: a deep page's repeats start from the marks
    // its first run left (src/backends/data-info/page-marks.ts). `fresh` gives each run a lister
    // of its own, so every run walks as a first visit does.
    const listing =
      (options: Partial<ListingOptions>, fresh = false) =>
      () =>
        (fresh ? new Lister(data) : lister).list(caller, object, access, {
          limit: 100,
          offset: 0,
          sortField: 'name',
          sortDir: 'ASC',
          entityType: 'any',
          infoTypes: [],
          badChars: '',
          badNames: [],
          badPaths: [],
          ...options,
        });
    const searching = (body: unknown) => {
      const request = readSearchRequest(body);
      return () => search(data, caller, request);
    };
    const common = { all: [{ type: 'label', args: { label: 'variants' } }] };
    const cases: [string, () => Promise<unknown>][] = [
      ['listing, first page by name', listing({})],
      ['listing, middle page by name', listing({ offset: n / 2 })],
      ['listing, middle page by name, first visit (no mark)', listing({ offset: n / 2 }, true)],
      ['listing, middle page by name desc', listing({ offset: n / 2, sortDir: 'DESC' })],
      ['listing, last page by name', listing({ offset: n - 100 })],
      ['listing, last page by name, first visit (no mark)', listing({ offset: n - 100 }, true)],
      ['listing, middle page by path', listing({ offset: n / 2, sortField: 'path' })],
      [
        'listing, middle page by date modified desc',
        listing({ offset: n / 2, sortField: 'datemodified', sortDir: 'DESC' }),
      ],
      ['search, common word, first 100', searching({ query: common, size: 100 })],
      [
        'search, common word, first 100 by date modified desc',
        searching({
          query: common,
          size: 100,
          sort: [{ field: 'dateModified', order: 'descending' }],
        }),
      ],
      [
        'search, rare term',
        searching({
          query: {
            all: [{ type: 'label', args: { label: `sample-${String(n / 2).padStart(6, '0')}` } }],
          },
          size: 100,
        }),
      ],
    ];
    for (const [name, run] of cases) {
      const { p50, max } = await timed(run);
      figures.set(name, `${p50.toFixed(1)} / ${max.toFixed(1)}`);
    }
  } finally {
    await store.close();
  }
  return figures;
}

for (const engine of engines) {
  const columns: Map<string, string>[] = [];
  for (const n of sizes) columns.push(await measure(engine, n));
  console.log(
    `\n| ${engine}: median / slowest of ${runs}, ms | ${sizes.map((n) => `${n.toLocaleString('en')} items`).join(' | ')} |`,
  );
  console.log(`| --- | ${sizes.map(() => '---:').join(' | ')} |`);
  for (const name of columns[0]!.keys())
    console.log(`| ${name} | ${columns.map((column) => column.get(name)).join(' | ')} |`);
}
