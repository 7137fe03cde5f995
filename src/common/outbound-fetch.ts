/**
 * HTTP requests to addresses a user chose (URL import, webhooks), guarded against server-side request
 * forgery: a user must not be able to make the gateway read its own loopback services, the
 * cloud metadata endpoint (169.254.169.254) or anything else on a private network.
 *
 * The check happens where it cannot be raced: on the address the socket actually connects to.
 * DNS answers are checked in the connector's `lookup` (every address of a name, so a name with
 * one public and one private address is refused), IP-literal hosts before connecting (net.connect
 * does not call `lookup` for them), and the connected socket's remote address once more. Redirects
 * are followed by hand (at most 5), each hop re-checked the same way; only http and https.
 */
import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions } from 'node:dns';
import { BlockList, isIP } from 'node:net';
import type { Readable } from 'node:stream';
import { Agent, buildConnector, type Dispatcher } from 'undici';

/** Why an outbound request was not made (or not finished). */
export class OutboundError extends Error {
  override readonly name = 'OutboundError';
  readonly code: 'ERR_ADDRESS_REFUSED' | 'ERR_BAD_URL' | 'ERR_TOO_MANY_REDIRECTS';

  constructor(
    code: 'ERR_ADDRESS_REFUSED' | 'ERR_BAD_URL' | 'ERR_TOO_MANY_REDIRECTS',
    message: string,
  ) {
    super(message);
    this.code = code;
  }
}

const blocked = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], // "this network", incl. the unspecified address
  ['10.0.0.0', 8], // RFC 1918
  ['100.64.0.0', 10], // carrier-grade NAT (RFC 6598)
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local, incl. cloud metadata 169.254.169.254
  ['172.16.0.0', 12], // RFC 1918
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.168.0.0', 16], // RFC 1918
  ['198.18.0.0', 15], // benchmarking
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, incl. broadcast
] as const) {
  blocked.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 96], // unspecified, and IPv4-compatible addresses (deprecated), which could embed a private IPv4
  ['::1', 128], // loopback
  ['64:ff9b::', 96], // NAT64: would reach whatever IPv4 address it embeds, private ones included
  ['64:ff9b:1::', 48], // local-use NAT64
  ['100::', 64], // discard-only
  ['2002::', 16], // 6to4 (deprecated): embeds an IPv4 address
  ['fc00::', 7], // unique local (ULA)
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated, still routed by some stacks)
  ['ff00::', 8], // multicast
] as const) {
  blocked.addSubnet(network, prefix, 'ipv6');
}

/**
 * True for addresses an outbound request must not reach: loopback, private (RFC 1918, CGNAT,
 * ULA), link-local, unspecified, multicast and reserved ranges. BlockList applies the IPv4 rules to
 * IPv4-mapped IPv6 addresses (`::ffff:127.0.0.1`) itself; the other IPv6 forms that embed an IPv4
 * address are refused as whole ranges above. Something that is not an IP address is refused too.
 */
export function isForbiddenAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, '').split('%')[0]!;
  const family = isIP(bare);
  if (family === 4) return blocked.check(bare, 'ipv4');
  return family !== 6 || blocked.check(bare, 'ipv6');
}

function refused(host: string, address: string): OutboundError {
  const shown = host === address ? address : `${host} (${address})`;
  return new OutboundError(
    'ERR_ADDRESS_REFUSED',
    `${shown} is a loopback, private, link-local or reserved address`,
  );
}

/** Resolves a host name and refuses it when any of its addresses is forbidden. IP literals are checked as they are. */
export async function checkHost(hostname: string): Promise<void> {
  const host = hostname.replace(/^\[|\]$/g, '');
  if (isIP(host)) {
    if (isForbiddenAddress(host)) throw refused(host, host);
    return;
  }
  const addresses = await new Promise<LookupAddress[]>((resolve, reject) =>
    dnsLookup(host, { all: true }, (error, found) => (error ? reject(error) : resolve(found))),
  );
  const bad = addresses.find((entry) => isForbiddenAddress(entry.address));
  if (bad) throw refused(host, bad.address);
}

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/** A `lookup` for net.connect that answers only when every address of the name is allowed. */
function guardedLookup(
  hostname: string,
  options: LookupAllOptions | Record<string, unknown>,
  callback: LookupCallback,
): void {
  dnsLookup(hostname, { ...(options as object), all: true }, (error, addresses) => {
    if (error) return callback(error, []);
    const bad = addresses.find((entry) => isForbiddenAddress(entry.address));
    if (bad)
      return callback(Object.assign(refused(hostname, bad.address), { errno: undefined }), []);
    if ((options as { all?: boolean }).all) return callback(null, addresses);
    const first = addresses[0];
    if (!first)
      return callback(
        Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }),
        [],
      );
    callback(null, first.address, first.family);
  });
}

/** An undici connector that refuses forbidden addresses, whether named by DNS or written literally. */
function guardedConnector(timeoutMs: number): buildConnector.connector {
  const base = buildConnector({
    timeout: timeoutMs,
    lookup: guardedLookup,
  } as buildConnector.BuildOptions);
  return (options, callback) => {
    const host = options.hostname.replace(/^\[|\]$/g, '');
    if (isIP(host) && isForbiddenAddress(host)) return callback(refused(host, host), null);
    base(options, (error, socket) => {
      if (error) return callback(error, null);
      // The address the socket really reached: the last word, whatever resolved it.
      const remote = socket!.remoteAddress;
      if (remote !== undefined && isForbiddenAddress(remote)) {
        socket!.destroy();
        return callback(refused(host, remote), null);
      }
      callback(null, socket!);
    });
  };
}

export interface OutboundOptions {
  /** Skip the address checks (URL_IMPORT_ALLOW_PRIVATE_NETWORKS, for tests and closed networks). */
  allowPrivateNetworks: boolean;
  maxRedirects?: number;
  connectTimeoutMs?: number;
  /** Time to wait for the response headers of each hop. */
  headersTimeoutMs?: number;
  /** Longest pause between two chunks of the body. */
  bodyTimeoutMs?: number;
  signal?: AbortSignal;
}

export interface OutboundResponse {
  /** The URL that answered, after redirects. */
  url: URL;
  statusCode: number;
  headers: Record<string, string | string[] | undefined>;
  body: Readable & Dispatcher.BodyMixin;
  /** Frees the connection pool; call once the body is consumed or abandoned. */
  close(): Promise<void>;
}

const redirectStatuses = new Set([301, 302, 303, 307, 308]);

function checkScheme(url: URL): void {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new OutboundError(
      'ERR_BAD_URL',
      `only http and https URLs can be fetched, not ${url.protocol.replace(/:$/, '')}`,
    );
  }
  if (url.username || url.password)
    throw new OutboundError('ERR_BAD_URL', 'URLs with credentials are not fetched');
}

/**
 * GETs `url`, following redirects, and hands back the final response with its body unread
 * (the caller streams it). Non-2xx answers are returned, not thrown.
 */
export async function outboundGet(url: URL, options: OutboundOptions): Promise<OutboundResponse> {
  const maxRedirects = options.maxRedirects ?? 5;
  const connectTimeoutMs = options.connectTimeoutMs ?? 10_000;
  const agent = new Agent({
    connect: options.allowPrivateNetworks
      ? { timeout: connectTimeoutMs }
      : guardedConnector(connectTimeoutMs),
    headersTimeout: options.headersTimeoutMs ?? 30_000,
    bodyTimeout: options.bodyTimeoutMs ?? 60_000,
  });
  const close = () => agent.close().catch(() => agent.destroy().catch(() => {}));
  let current = url;
  try {
    for (let hop = 0; ; hop++) {
      checkScheme(current);
      const response = await agent.request({
        origin: current.origin,
        path: `${current.pathname}${current.search}`,
        method: 'GET',
        headers: { accept: '*/*', 'user-agent': 'platform-gateway-url-import' },
        signal: options.signal,
      });
      const location = response.headers.location;
      if (!redirectStatuses.has(response.statusCode) || typeof location !== 'string') {
        return {
          url: current,
          statusCode: response.statusCode,
          headers: response.headers,
          body: response.body,
          close,
        };
      }
      await response.body.dump();
      if (hop >= maxRedirects)
        throw new OutboundError('ERR_TOO_MANY_REDIRECTS', `more than ${maxRedirects} redirects`);
      try {
        current = new URL(location, current);
      } catch {
        throw new OutboundError(
          'ERR_BAD_URL',
          `the redirect target ${JSON.stringify(location)} is not a URL`,
        );
      }
    }
  } catch (error) {
    await agent.destroy().catch(() => {});
    throw error;
  }
}

/**
 * Checks a URL a user gives for later requests (a webhook): http or https, no credentials, and,
 * unless `allowPrivateNetworks`, a host whose every address is allowed now. Requests made later
 * are checked again where they connect (a name may change its addresses).
 */
export async function checkOutboundUrl(url: URL, allowPrivateNetworks: boolean): Promise<void> {
  checkScheme(url);
  if (!allowPrivateNetworks) await checkHost(url.hostname);
}

export interface OutboundPostOptions extends OutboundOptions {
  headers?: Record<string, string>;
}

/**
 * POSTs `body` to `url` once, redirects not followed (a webhook answers where it was told to),
 * each address checked as outboundGet checks them. Answers the status; the answer's body is read
 * and dropped. Slow answers fail with the timeouts of `options`.
 */
export async function outboundPost(
  url: URL,
  body: Buffer,
  options: OutboundPostOptions,
): Promise<{ statusCode: number }> {
  checkScheme(url);
  const connectTimeoutMs = options.connectTimeoutMs ?? 10_000;
  const agent = new Agent({
    connect: options.allowPrivateNetworks
      ? { timeout: connectTimeoutMs }
      : guardedConnector(connectTimeoutMs),
    headersTimeout: options.headersTimeoutMs ?? 30_000,
    bodyTimeout: options.bodyTimeoutMs ?? 30_000,
  });
  try {
    const response = await agent.request({
      origin: url.origin,
      path: `${url.pathname}${url.search}`,
      method: 'POST',
      headers: {
        'user-agent': 'platform-gateway-webhook',
        'content-type': 'application/json',
        ...options.headers,
      },
      body,
      signal: options.signal,
    });
    await response.body.dump();
    return { statusCode: response.statusCode };
  } finally {
    await agent.close().catch(() => agent.destroy().catch(() => {}));
  }
}
