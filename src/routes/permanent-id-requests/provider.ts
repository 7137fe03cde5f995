// The PID-provider client of the permanent-ID completion step (routes.md §14 `/pidprovider`): one
// small interface, `mint`, with two implementations. With PIDPROVIDER_URL set, a DataCite-style
// REST provider mints the identifier (POST `<PIDPROVIDER_URL>/dois`, JSON:API body, basic auth);
// without it, the gateway mints test identifiers itself under PID_PREFIX, and says so.
import { randomBytes } from 'node:crypto';
import type { GatewayConfig } from '../../config/index.ts';
import type { Forwarder } from '../../http/proxy.ts';
import { gatewayError } from '../../common/errors.ts';

export type PidType = 'DOI' | 'ARK';

export interface MintRequest {
  type: PidType;
  /** Where the identifier resolves to (the landing page of the data). */
  targetUrl: string;
  /** The DataCite XML describing the data, for a given identifier. */
  xml(identifier: string): string;
}

export interface Minted {
  identifier: string;
  /** `embedded` (minted by the gateway, not registered anywhere) or `http` (the configured provider). */
  provider: 'embedded' | 'http';
  /** Why an embedded identifier is not a registered one. */
  note?: string;
}

export interface PidMinter {
  readonly provider: Minted['provider'];
  mint(request: MintRequest): Promise<Minted>;
}

/** The ARK test NAAN and its "fake" shoulder: identifiers that never resolve anywhere. */
const testArkShoulder = 'ark:/99999/fk4';
const suffixAlphabet = 'abcdefghjkmnpqrstvwxyz0123456789';

/** A random suffix in DataCite's style, `xxxx-xxxx` (40 bits). */
export function randomSuffix(): string {
  const bytes = randomBytes(8);
  const chars = [...bytes].map((byte) => suffixAlphabet[byte % suffixAlphabet.length]);
  return `${chars.slice(0, 4).join('')}-${chars.slice(4).join('')}`;
}

/** The identifier a new mint would get, before any provider has seen it. */
export function candidateIdentifier(type: PidType, prefix: string): string {
  return type === 'DOI'
    ? `${prefix}/${randomSuffix()}`
    : `${testArkShoulder}${randomSuffix().replace('-', '')}`;
}

/** Mints without any provider: DOIs under the configured prefix, ARKs under the test shoulder. */
export class EmbeddedMinter implements PidMinter {
  readonly provider = 'embedded' as const;

  private readonly prefix: string;

  constructor(prefix: string) {
    this.prefix = prefix;
  }

  async mint(request: MintRequest): Promise<Minted> {
    return {
      identifier: candidateIdentifier(request.type, this.prefix),
      provider: 'embedded',
      note: `Minted by the gateway under ${request.type === 'DOI' ? `the prefix ${this.prefix}` : `the test shoulder ${testArkShoulder}`}, not registered with a PID provider: set PIDPROVIDER_URL to register identifiers.`,
    };
  }
}

const providerError = (reason: string, extra: Record<string, unknown> = {}) =>
  gatewayError('ERR_PID_PROVIDER', reason, extra);

/**
 * A DataCite-style REST provider behind the `pidprovider` backend target (PIDPROVIDER_URL,
 * PIDPROVIDER_TIMEOUT_MS): the gateway picks the DOI (prefix + random suffix) and publishes it
 * with its URL and base64 XML; the provider's answer (`data.id` or `data.attributes.doi`) is the
 * identifier recorded.
 */
export class HttpMinter implements PidMinter {
  readonly provider = 'http' as const;

  private readonly forwarder: Forwarder;
  private readonly settings: GatewayConfig['pid'];

  constructor(forwarder: Forwarder, settings: GatewayConfig['pid']) {
    this.forwarder = forwarder;
    this.settings = settings;
  }

  async mint(request: MintRequest): Promise<Minted> {
    if (request.type !== 'DOI') {
      throw gatewayError(
        'ERR_BAD_REQUEST',
        `The PID provider at PIDPROVIDER_URL mints DOIs only; this request asks for an ${request.type}.`,
        { type: request.type },
      );
    }
    const doi = candidateIdentifier('DOI', this.settings.prefix);
    const body = JSON.stringify({
      data: {
        type: 'dois',
        attributes: {
          doi,
          prefix: this.settings.prefix,
          event: 'publish',
          url: request.targetUrl,
          xml: Buffer.from(request.xml(doi)).toString('base64'),
        },
      },
    });
    const headers: Record<string, string> = {
      accept: 'application/vnd.api+json, application/json',
      'content-type': 'application/vnd.api+json',
    };
    if (this.settings.user !== undefined && this.settings.password !== undefined) {
      headers.authorization = `Basic ${Buffer.from(`${this.settings.user}:${this.settings.password}`).toString('base64')}`;
    }
    const response = await this.forwarder.request('pidprovider', 'POST', '/dois', headers, body);
    const text = await response.body.text().catch(() => '');
    if (response.statusCode === 401 || response.statusCode === 403) {
      throw providerError(
        `The PID provider refused the gateway's credentials (${response.statusCode}); check PIDPROVIDER_USER and PIDPROVIDER_PASSWORD.`,
        {
          provider_status: response.statusCode,
        },
      );
    }
    if (response.statusCode < 200 || response.statusCode >= 300) {
      throw providerError(
        `The PID provider refused to mint ${doi} (${response.statusCode}): ${text.trim().slice(0, 300) || 'no reason given'}`,
        {
          provider_status: response.statusCode,
        },
      );
    }
    const identifier = mintedIdentifier(text);
    if (identifier === undefined)
      throw providerError(
        'The PID provider answered without an identifier (expected data.id or data.attributes.doi).',
      );
    return { identifier, provider: 'http' };
  }
}

function mintedIdentifier(text: string): string | undefined {
  try {
    const data = (JSON.parse(text) as { data?: { id?: unknown; attributes?: { doi?: unknown } } })
      .data;
    const found = data?.attributes?.doi ?? data?.id;
    return typeof found === 'string' && found.trim() !== '' ? found.trim() : undefined;
  } catch {
    return undefined;
  }
}

/** The minter this deployment uses: the HTTP provider when PIDPROVIDER_URL is set, else the embedded one. */
export function configuredMinter(config: GatewayConfig, forwarder: Forwarder): PidMinter {
  return config.backends.pidprovider.url
    ? new HttpMinter(forwarder, config.pid)
    : new EmbeddedMinter(config.pid.prefix);
}
