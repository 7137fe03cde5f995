/**
 * HTTP requests to addresses a user chose (URL import), guarded against server-side request
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
  constructor(
    readonly code: 'ERR_ADDRESS_REFUSED' | 'ERR_BAD_URL' | 'ERR_TOO_MANY_REDIRECTS',
    message: string,
  ) {
    super(message);
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
  ['::', 128], // unspecified
  ['::1', 128], // loopback
  ['100::', 64], // discard-only
  ['64:ff9b:1::', 48], // local-use NAT64
  ['fc00::', 7], // unique local (ULA)
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated, still routed by some stacks)
  ['ff00::', 8], // multicast
] as const) {
  blocked.addSubnet(network, prefix, 'ipv6');
}

/** The 16 bytes of an IPv6 address (already known to be valid), zone id dropped. */
function ipv6Bytes(address: string): number[] {
  let text = address.split('%')[0]!;
  const bytes: number[] = [];
  // A trailing dotted quad (`::ffff:1.2.3.4`) is the last 32 bits.
  const quad = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  let tail: number[] = [];
  if (quad) {
    tail = quad.slice(1, 5).map(Number);
    text = text.slice(0, quad.index) + '0:0';
  }
  const [head, rest] = text.includes('::') ? text.split('::') : [text, undefined];
  const groups = (part: string | undefined) => (part ? part.split(':').filter((group) => group !== '') : []);
  const left = groups(head);
  const right = groups(rest);
  const middle = rest === undefined ? [] : Array.from({ length: 8 - left.length - right.length }, () => '0');
  for (const group of [...left, ...middle, ...right]) {
    const value = parseInt(group, 16);
    bytes.push(value >> 8, value & 0xff);
  }
  if (quad) bytes.splice(12, 4, ...tail);
  return bytes;
}

/** IPv6 forms that carry an IPv4 address a host may route to: mapped, compatible, NAT64, 6to4. */
function embeddedIpv4(address: string): string | undefined {
  const bytes = ipv6Bytes(address);
  const zero = (from: number, to: number) => bytes.slice(from, to).every((byte) => byte === 0);
  const quad = (at: number) => bytes.slice(at, at + 4).join('.');
  if (zero(0, 10) && bytes[10] === 0xff && bytes[11] === 0xff) return quad(12); // ::ffff:a.b.c.d
  if (zero(0, 12)) return quad(12); // ::a.b.c.d (deprecated IPv4-compatible)
  if (bytes[0] === 0x00 && bytes[1] === 0x64 && bytes[2] === 0xff && bytes[3] === 0x9b && zero(4, 12)) return quad(12); // 64:ff9b::/96
  if (bytes[0] === 0x20 && bytes[1] === 0x02) return quad(2); // 2002::/16 (6to4)
  return undefined;
}

/**
 * True for addresses an outbound request must not reach: loopback, private (RFC 1918, CGNAT,
 * ULA), link-local, unspecified, multicast and reserved ranges, also when written as IPv6 forms
 * that embed such an IPv4 address. Something that is not an IP address at all is refused too.
 */
export function isForbiddenAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, '');
  const family = isIP(bare.split('%')[0]!);
  if (family === 4) return blocked.check(bare, 'ipv4');
  if (family !== 6) return true;
  const plain = bare.split('%')[0]!;
  if (blocked.check(plain, 'ipv6')) return true;
  const inner = embeddedIpv4(plain);
  return inner !== undefined && blocked.check(inner, 'ipv4');
}

function refused(host: string, address: string): OutboundError {
  const shown = host === address ? address : `${host} (${address})`;
  return new OutboundError('ERR_ADDRESS_REFUSED', `${shown} is a loopback, private, link-local or reserved address`);
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

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** A `lookup` for net.connect that answers only when every address of the name is allowed. */
function guardedLookup(hostname: string, options: LookupAllOptions | Record<string, unknown>, callback: LookupCallback): void {
  dnsLookup(hostname, { ...(options as object), all: true }, (error, addresses) => {
    if (error) return callback(error, []);
    const bad = addresses.find((entry) => isForbiddenAddress(entry.address));
    if (bad) return callback(Object.assign(refused(hostname, bad.address), { errno: undefined }), []);
    if ((options as { all?: boolean }).all) return callback(null, addresses);
    const first = addresses[0];
    if (!first) return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), []);
    callback(null, first.address, first.family);
  });
}

/** An undici connector that refuses forbidden addresses, whether named by DNS or written literally. */
function guardedConnector(timeoutMs: number): buildConnector.connector {
  const base = buildConnector({ timeout: timeoutMs, lookup: guardedLookup } as buildConnector.BuildOptions);
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
    throw new OutboundError('ERR_BAD_URL', `only http and https URLs can be fetched, not ${url.protocol.replace(/:$/, '')}`);
  }
  if (url.username || url.password) throw new OutboundError('ERR_BAD_URL', 'URLs with credentials are not fetched');
}

/**
 * GETs `url`, following redirects, and hands back the final response with its body unread
 * (the caller streams it). Non-2xx answers are returned, not thrown.
 */
export async function outboundGet(url: URL, options: OutboundOptions): Promise<OutboundResponse> {
  const maxRedirects = options.maxRedirects ?? 5;
  const connectTimeoutMs = options.connectTimeoutMs ?? 10_000;
  const agent = new Agent({
    connect: options.allowPrivateNetworks ? { timeout: connectTimeoutMs } : guardedConnector(connectTimeoutMs),
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
        return { url: current, statusCode: response.statusCode, headers: response.headers, body: response.body, close };
      }
      await response.body.dump();
      if (hop >= maxRedirects) throw new OutboundError('ERR_TOO_MANY_REDIRECTS', `more than ${maxRedirects} redirects`);
      try {
        current = new URL(location, current);
      } catch {
        throw new OutboundError('ERR_BAD_URL', `the redirect target ${JSON.stringify(location)} is not a URL`);
      }
    }
  } catch (error) {
    await agent.destroy().catch(() => {});
    throw error;
  }
}
