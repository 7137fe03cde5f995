// The metadata service alone on a real backend host (backend-host.ts), for the metadata tests.
import { hostEngines, withUser, type BackendHost, type HttpAnswer } from './backend-host.ts';

export interface MetadataHost extends BackendHost {
  /** `url` is below `/metadata`; `user` is added as the `user` parameter when given; `body` is sent as JSON, `raw` as is (as JSON). */
  call(
    method: string,
    url: string,
    options?: { user?: string; body?: unknown; raw?: string; headers?: Record<string, string> },
  ): Promise<HttpAnswer>;
}

function metadataHost(base: BackendHost): MetadataHost {
  return {
    ...base,
    call: (method, url, options = {}) => {
      const body =
        options.raw ?? (options.body !== undefined ? JSON.stringify(options.body) : undefined);
      return base.request(method, withUser(`/metadata${url}`, options.user), {
        headers: {
          ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
          ...options.headers,
        },
        body,
      });
    },
  };
}

/** SQLite always; PostgreSQL when DATABASE_URL is set (required in CI). */
export const metadataEngines: { name: string; open: () => Promise<MetadataHost | undefined> }[] =
  hostEngines.map((engine) => ({
    name: engine.name,
    open: async () => {
      const base = await engine.open({ names: ['metadata'] });
      return base && metadataHost(base);
    },
  }));
