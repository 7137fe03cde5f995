// Writes test/fixtures/routes.json, the (method, path) pairs of every row of the route reference
// (routes.md), which test/http/route-walk.test.ts walks: the tests run on a clean clone where the
// shared reference is not present, so the list is committed and regenerated when routes.md changes:
//
//   node scripts/routes-fixture.mjs [path/to/routes.md]   (default ../shared/reference/routes.md)
//
// Plain JavaScript, no dependencies. How a row's cells are read (routes.md's own shorthand):
// - only tables whose first header cell is `Method` (the route tables) are read;
// - `;` pairs method groups with path groups (`GET; GET, POST | /a; /a/{b}`); a path group may
//   carry its own methods (`GET | /a; GET, DELETE `/a/{b}``); a method group may carry its own
//   path, relative to the row's path (`PUT; POST `.../copy` | /apps/{id}`, `under `/x``);
// - in a comma list, a path that starts with the first path's first segment is whole, any other is
//   relative to the first path's parent (`/analyses/{id}/parameters`, `/steps`);
// - `...` continues the previous path from the segment it names (`.../versions/{v}/details`);
// - `[/secured]/x` is `/secured/x` and `/x`; `/x[/{y}]` is `/x` and `/x/{y}`;
// - `as user routes | /admin/communities, /{name}, ...`: the methods of the user routes of the same
//   paths without `/admin`.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const source = process.argv[2] ?? path.resolve(root, '../shared/reference/routes.md');
const target = path.join(root, 'test/fixtures/routes.json');

const methodWords = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD']);

/** Splits a table row into cells (a `\|` inside a cell is not a separator). */
function cells(line) {
  return line
    .replace(/\\\|/g, '\u0000')
    .split('|')
    .slice(1, -1)
    .map((cell) => cell.replace(/\u0000/g, '|').trim());
}

/** Splits on `;` outside backticks. */
function splitGroups(text) {
  const groups = [];
  let current = '';
  let quoted = false;
  for (const char of text) {
    if (char === '`') quoted = !quoted;
    if (char === ';' && !quoted) {
      groups.push(current.trim());
      current = '';
    } else current += char;
  }
  groups.push(current.trim());
  return groups;
}

/** `GET, POST `/x`` → methods and the backticked paths that follow them. */
function parseGroup(text) {
  const firstTick = text.indexOf('`');
  const head = firstTick === -1 ? text : text.slice(0, firstTick);
  const methods = head
    .split(/[,\s]+/)
    .map((word) => word.trim())
    .filter((word) => methodWords.has(word));
  const paths = [...text.matchAll(/`([^`]+)`/g)].map((match) => match[1].trim());
  return { methods, paths, under: /\bunder\b/.test(head) };
}

const segments = (p) => p.split('/').filter(Boolean);

/** `.../rest` after `base`: from the last segment of base equal to rest's first, else appended. */
function continuePath(base, rest) {
  const restSegments = segments(rest);
  const baseSegments = segments(base);
  const at = baseSegments.lastIndexOf(restSegments[0]);
  const kept = at === -1 ? baseSegments : baseSegments.slice(0, at);
  return '/' + [...kept, ...restSegments].join('/');
}

/** Resolves a comma list of paths against its first (and `...` against `previous`). */
function resolveList(paths, previous) {
  const resolved = [];
  for (const [index, raw] of paths.entries()) {
    let full;
    if (raw.startsWith('...'))
      full = continuePath(index === 0 ? previous : resolved[0], raw.slice(3));
    else if (index === 0) full = raw;
    else {
      const first = resolved[0];
      const firstSegment = segments(first.replace(/^(\[\/secured\]|\/secured)(?=\/)/, ''))[0];
      if (segments(raw)[0] === firstSegment) full = raw;
      else full = '/' + [...segments(first).slice(0, -1), ...segments(raw)].join('/');
    }
    resolved.push(full);
  }
  return resolved;
}

/** `[/secured]/x` → both; `/x[/{y}]` → both. */
function expand(p) {
  const secured = p.match(/^\[\/secured\](.*)$/);
  if (secured) return [...expand(`/secured${secured[1]}`), ...expand(secured[1])];
  const optional = p.match(/^(.*)\[(\/[^\]]+)\]$/);
  if (optional) return [optional[1], optional[1] + optional[2]];
  return [p];
}

function parse(markdown) {
  const rows = [];
  let inRouteTable = false;
  let section = '';
  let previous = '/';
  const pending = [];
  for (const line of markdown.split('\n')) {
    const heading = line.match(/^## (\d+)\./);
    if (heading) section = heading[1];
    if (!line.startsWith('|')) {
      inRouteTable = false;
      continue;
    }
    const row = cells(line);
    if (row[0] === 'Method') {
      inRouteTable = true;
      continue;
    }
    if (!inRouteTable || /^-+$/.test(row[0])) continue;
    if (row[0] === 'as user routes') {
      pending.push({
        paths: resolveAsUser([...row[1].matchAll(/`([^`]+)`/g)].map((m) => m[1])),
        section,
      });
      continue;
    }
    const methodGroups = splitGroups(row[0]).map(parseGroup);
    const pathGroups = splitGroups(row[1]).map(parseGroup);
    // The row's base path: the first path of the path cell.
    const firstList = resolveList(pathGroups[0].paths, previous);
    const base = firstList[0];
    const pairs = [];
    let groupPrevious = base;
    pathGroups.forEach((group, index) => {
      const list = index === 0 ? firstList : resolveList(group.paths, groupPrevious);
      groupPrevious = list[list.length - 1] ?? groupPrevious;
      const methods =
        group.methods.length > 0
          ? group.methods
          : pathGroups.length === methodGroups.length
            ? methodGroups[index].methods
            : methodGroups.filter((m) => m.paths.length === 0).flatMap((m) => m.methods);
      if (group.under && pathGroups.length === 1) {
        // `under `/x``: only the method groups without a path apply to /x itself.
        for (const method of methods) pairs.push([method, base]);
        return;
      }
      for (const p of list) for (const method of methods) pairs.push([method, p]);
    });
    // Method groups with their own (relative) paths.
    for (const group of methodGroups) {
      if (group.paths.length === 0) continue;
      for (const raw of group.paths) {
        const full = raw.startsWith('...') ? continuePath(base, raw.slice(3)) : base + raw;
        for (const method of group.methods) pairs.push([method, full]);
      }
    }
    previous = pairs.length > 0 ? pairs[pairs.length - 1][1] : previous;
    for (const [method, p] of pairs)
      for (const expanded of expand(p)) rows.push({ method, path: expanded, section });
  }
  // `as user routes`: each admin path takes the methods of its user counterpart.
  for (const { paths, section: at } of pending) {
    for (const adminPath of paths) {
      const userPath = adminPath.replace(/^\/admin/, '');
      for (const row of rows.filter((r) => r.path === userPath))
        rows.push({ method: row.method, path: adminPath, section: at });
    }
  }
  const seen = new Set();
  return rows.filter((row) => {
    const key = `${row.method} ${row.path}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** `/admin/communities`, `/{name}`, `/{name}/admins` → each under the first. */
function resolveAsUser(paths) {
  const [first, ...rest] = paths;
  return [first, ...rest.map((p) => first + p)];
}

const rows = parse(readFileSync(source, 'utf8'));
writeFileSync(target, JSON.stringify(rows, null, 2) + '\n');
console.log(`${rows.length} (method, path) pairs written to ${path.relative(root, target)}`);
