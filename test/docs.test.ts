// The documentation stays true to the code it describes: the configuration page lists exactly the
// environment variables src/config/ reads, the architecture page names exactly the files of the
// shared folders (src/common/, src/http/, src/embedded/), and every relative link in README.md and
// docs/ leads to a file of this repository (a clone holds nothing beside it, so no link may leave it).
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../src/config/index.ts';

const root = fileURLToPath(new URL('..', import.meta.url));

function read(relative: string): string {
  return readFileSync(path.join(root, relative), 'utf8');
}

/** README.md and every Markdown file under docs/, as paths relative to the repository root. */
function markdownFiles(): string[] {
  const found = ['README.md'];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(path.join(root, dir), { withFileTypes: true })) {
      const relative = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(relative);
      else if (entry.name.endsWith('.md')) found.push(relative);
    }
  };
  walk('docs');
  return found.sort();
}

/**
 * The variable names loadConfig reads. Running it over a recording environment finds the names it
 * builds (one `<SERVICE>_URL`, `_TIMEOUT_MS`, `_SECRET` per backend); the extapi triple is set so
 * that the settings read only when it is configured are read too. Scanning the source for
 * `(env, 'NAME'` adds any name read only on some other path.
 */
function variablesConfigReads(): Set<string> {
  const seen = new Set<string>();
  const recording = (values: Record<string, string>): Record<string, string | undefined> =>
    new Proxy({} as Record<string, string | undefined>, {
      get(_target, name) {
        if (typeof name === 'string') seen.add(name);
        return typeof name === 'string' ? values[name] : undefined;
      },
    });
  loadConfig(recording({}));
  loadConfig(
    recording({
      EXTAPI_AUTHORIZE_URL: 'https://id.example/authorize',
      EXTAPI_TOKEN_URL: 'https://id.example/token',
      EXTAPI_CLIENT_ID: 'gateway',
    }),
  );
  for (const file of readdirSync(path.join(root, 'src/config')).filter((name) =>
    name.endsWith('.ts'),
  ))
    for (const match of read(`src/config/${file}`).matchAll(/\(env, '([A-Z][A-Z0-9_]*)'/g))
      seen.add(match[1]!);
  return seen;
}

/** A `## Heading` section of a Markdown page, up to the next `## ` heading. */
function section(page: string, heading: string): string {
  const start = page.indexOf(`\n## ${heading}\n`);
  assert.ok(start >= 0, `the page has a "## ${heading}" section`);
  const end = page.indexOf('\n## ', start + 1);
  return page.slice(start, end < 0 ? undefined : end);
}

test('the configuration page lists exactly the variables src/config/ reads', () => {
  const page = read('docs/configuration.md');
  const readByConfig = variablesConfigReads();
  // A backend service is a prefix read with all three of _URL, _TIMEOUT_MS and _SECRET.
  const services = [...readByConfig]
    .filter((name) => name.endsWith('_URL'))
    .map((name) => name.slice(0, -'_URL'.length))
    .filter(
      (prefix) => readByConfig.has(`${prefix}_TIMEOUT_MS`) && readByConfig.has(`${prefix}_SECRET`),
    )
    .sort();
  assert.ok(services.length > 0);

  const documentedServices = [
    ...section(page, 'Backend services').matchAll(/`([A-Z][A-Z0-9_]*)_URL`/g),
  ]
    .map((match) => match[1]!)
    .sort();
  assert.deepEqual(
    documentedServices,
    services,
    'the backend services section names every backend URL variable, and only those',
  );

  const documented = new Set<string>();
  for (const row of section(page, 'Settings')
    .split('\n')
    .filter((line) => line.startsWith('| `'))) {
    const firstCell = row.split('|')[1]!;
    for (const [, name] of firstCell.matchAll(/`([^`]+)`/g)) {
      if (name!.startsWith('<SERVICE>_'))
        for (const service of documentedServices)
          documented.add(name!.replace('<SERVICE>', service));
      else documented.add(name!);
    }
  }
  const missing = [...readByConfig].filter((name) => !documented.has(name)).sort();
  const extra = [...documented].filter((name) => !readByConfig.has(name)).sort();
  assert.deepEqual(
    missing,
    [],
    'every variable src/config/ reads has a row in docs/configuration.md',
  );
  assert.deepEqual(extra, [], 'every variable in docs/configuration.md is read by src/config/');
});

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
function anchor(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');
}

function anchorsOf(page: string): Set<string> {
  const prose = page.replace(/^```[\s\S]*?^```/gm, '');
  return new Set([...prose.matchAll(/^#{1,6} (.+)$/gm)].map((match) => anchor(match[1]!)));
}

test('every relative link in README.md and docs/ leads to a file (and heading) of the repository', () => {
  const broken: string[] = [];
  let links = 0;
  for (const file of markdownFiles()) {
    const page = read(file);
    if (page.includes('../shared/'))
      broken.push(`${file}: names ../shared/, which is not in a clone`);
    // Links in prose only: fenced blocks and code spans are examples, not links.
    const prose = page.replace(/^```[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, '');
    for (const [, target] of prose.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target!)) continue; // an absolute URL, not a file of the repository
      links += 1;
      const [filePart = '', fragment] = target!.split('#');
      const resolved =
        filePart === ''
          ? path.join(root, file)
          : path.resolve(path.dirname(path.join(root, file)), decodeURIComponent(filePart));
      if (path.relative(root, resolved).startsWith('..')) {
        broken.push(`${file}: ${target} leaves the repository`);
      } else if (!existsSync(resolved)) {
        broken.push(`${file}: ${target} names no file`);
      } else if (
        fragment !== undefined &&
        statSync(resolved).isFile() &&
        resolved.endsWith('.md') &&
        !anchorsOf(readFileSync(resolved, 'utf8')).has(fragment)
      ) {
        broken.push(`${file}: ${target} names no heading of that page`);
      }
    }
  }
  assert.ok(links > 0);
  assert.deepEqual(broken, []);
});

test('the architecture page names exactly the files of src/common/, src/http/ and src/embedded/', () => {
  const page = read('docs/architecture.md');
  for (const folder of ['common', 'http', 'embedded']) {
    const row = page.split('\n').find((line) => line.startsWith(`| \`src/${folder}/\` |`));
    assert.ok(row, `docs/architecture.md has a row for src/${folder}/`);
    // Names in the row that are paths of another folder (`src/common/service-token.ts`) do not count.
    const named = new Set([...row.matchAll(/`([a-z0-9-]+\.ts)`/g)].map((match) => match[1]!));
    const files = readdirSync(path.join(root, 'src', folder)).filter((name) =>
      name.endsWith('.ts'),
    );
    assert.deepEqual([...named].sort(), files.sort(), `the files of src/${folder}/`);
  }
});
