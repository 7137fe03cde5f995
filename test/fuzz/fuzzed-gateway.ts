// The gateway the fuzzing drives (operations.test.ts, found.test.ts): in process, the contract
// check on, its OpenAPI document, tokens of a user and an administrator, each request bounded in
// time; and what counts as a faulty answer.
import type { LightMyRequestResponse } from 'fastify';
import { isJsonMediaType, mediaType, type ContractDocument } from '../../src/http/contract.ts';
import { signEmbeddedToken } from '../../src/http/keys.ts';
import { noRateLimits, startGateway } from '../support/gateway.ts';
import { engineDatabase } from '../support/postgres.ts';
import type { FuzzRequest } from './requests.ts';

/** The most one request may take before it counts as hanging (a loaded CI machine is slow). */
const requestBoundMs = Number(process.env.FUZZ_REQUEST_MS ?? 15_000);

export type Operation = ContractDocument['paths'][string][string];

export interface FuzzedGateway {
  document: ContractDocument;
  /** Sends one request as its caller, failing it when no answer comes within the bound. */
  send(request: FuzzRequest): Promise<LightMyRequestResponse>;
  close(): Promise<void>;
}

export async function fuzzedGateway(engine: 'sqlite' | 'postgres'): Promise<FuzzedGateway> {
  const database = await engineDatabase(engine);
  const running = await startGateway({ ...noRateLimits, ...database.env, CONTRACT_CHECK: '1' });
  const { config } = running.gateway;
  const sign = async (username: string, admin: boolean) => ({
    authorization: `Bearer ${await signEmbeddedToken(
      running.dataDir,
      {
        username,
        roles: admin ? config.auth.adminRoles : [],
        groups: admin ? [config.auth.adminGroup] : [],
      },
      config.keys.authSigningKey,
    )}`,
  });
  const tokens: Record<FuzzRequest['caller'], Record<string, string>> = {
    user: await sign('fuzz-user', false),
    admin: await sign('fuzz-admin', true),
    anonymous: {},
  };
  /** Sends one request, failing it when no answer comes within the bound. */
  const send = async (request: FuzzRequest): Promise<LightMyRequestResponse> => {
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(
        () => reject(new Error(`no answer within ${requestBoundMs} ms (a hang)`)),
        requestBoundMs,
      );
    });
    try {
      return await Promise.race([
        running.gateway.app.inject({
          method: request.method as 'GET',
          url: request.url,
          headers: { ...request.headers, ...tokens[request.caller] },
          ...(request.payload !== undefined ? { payload: request.payload } : {}),
        }),
        bound,
      ]);
    } finally {
      clearTimeout(timer);
    }
  };
  return {
    document: (await running.gateway.app.inject({ url: '/openapi.json' })).json(),
    send,
    close: async () => {
      await running.close();
      await database.drop();
    },
  };
}

/** What is wrong with an answer, if anything. */
export function fault(
  method: string,
  path: string,
  operation: Operation,
  answer: LightMyRequestResponse,
): string | undefined {
  const status = answer.statusCode;
  const documented = operation.responses?.[String(status)];
  if (status >= 500 && !documented) return `${status} is not documented: ${answer.body}`;
  // A HEAD answer has no body: its status is all there is to judge.
  if (method === 'HEAD') return undefined;
  const type = mediaType(answer.headers['content-type']);
  let body: Record<string, unknown> | undefined;
  if (isJsonMediaType(type)) {
    try {
      body = answer.json();
    } catch {
      return `${status} answered with a body that is not JSON`;
    }
  }
  if (status >= 400) {
    if (!body) {
      const types = Object.keys(documented?.content ?? {});
      return type && types.includes(type)
        ? undefined
        : `${status} answered ${type ?? 'no type'}, not a JSON error: ${answer.body.slice(0, 200)}`;
    }
    const realm = path.startsWith('/realms/');
    const code = realm ? body.error : body.error_code;
    if (typeof code !== 'string')
      return `${status} without ${realm ? 'an OAuth error' : 'an error_code'}: ${answer.body}`;
  }
  return undefined;
}
