// Which headers cross the gateway: end-to-end ones only (RFC 9110 §7.6.1), in both directions.
import type { IncomingHttpHeaders } from 'node:http';

const hopByHop = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'expect',
  'host',
]);

const noNames: ReadonlySet<string> = new Set();

/** Header names listed in `Connection` (hop-by-hop by declaration); none in the usual case. */
function connectionTokens(
  headers: IncomingHttpHeaders | Record<string, string | string[] | undefined>,
): ReadonlySet<string> {
  const value = headers.connection;
  if (value === undefined) return noNames;
  const text = Array.isArray(value) ? value.join(',') : value;
  // `keep-alive` and `close` name no header: the usual value needs no set (nor, as sent, a regex).
  if (text === 'keep-alive' || text === 'close' || /^\s*(keep-alive|close)\s*$/i.test(text))
    return noNames;
  return new Set(
    text
      .split(',')
      .map((token) => token.trim().toLowerCase())
      .filter(Boolean),
  );
}

/** Copies end-to-end headers only: hop-by-hop ones (and those named in `Connection`) stay behind. */
export function endToEndHeaders(
  headers: IncomingHttpHeaders | Record<string, string | string[] | undefined>,
  drop: ReadonlySet<string> = noNames,
): Record<string, string | string[]> {
  const named = connectionTokens(headers);
  const result: Record<string, string | string[]> = {};
  // for…in over a plain header object: no entries array per call (this runs twice per request).
  for (const name in headers) {
    const value = headers[name];
    const lower = name.toLowerCase();
    if (value === undefined || hopByHop.has(lower) || named.has(lower) || drop.has(lower)) continue;
    result[lower] = value;
  }
  return result;
}

/**
 * endToEndHeaders over an answer's raw header list (name, value, name, value… as undici hands it),
 * in one pass with no intermediate object: `nameOf` gives a name in lower case (undici's
 * `util.headerNameToString`). A repeated name becomes an array, as undici's `parseHeaders` makes
 * it; a `__proto__` header is left out, as copying it into a plain object always did.
 */
export function endToEndRawHeaders(
  raw: readonly Buffer[],
  nameOf: (name: Buffer) => string,
): Record<string, string | string[]> {
  const result: Record<string, string | string[]> = {};
  let connection: string | undefined;
  for (let index = 0; index < raw.length; index += 2) {
    const name = nameOf(raw[index]!);
    const value = raw[index + 1]!.toString('latin1');
    if (hopByHop.has(name)) {
      if (name === 'connection')
        connection = connection === undefined ? value : `${connection},${value}`;
      continue;
    }
    if (name === '__proto__') continue;
    const prior = result[name];
    // `prior` may be inherited (a header named `constructor`): only an own one is a repeat.
    if (prior === undefined || !Object.hasOwn(result, name)) result[name] = value;
    else if (typeof prior === 'string') result[name] = [prior, value];
    else prior.push(value);
  }
  if (connection !== undefined)
    for (const name of connectionTokens({ connection })) delete result[name];
  return result;
}
