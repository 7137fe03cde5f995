// The data-store test gateway (data-store.ts) with an administrator, `root`, for the comment,
// favourite and permanent-ID request tests.
import { startDataStoreGateway, type DataStoreGateway, type GatewayOptions } from './data-store.ts';

export type { Answer, CallOptions } from './data-store.ts';
export type MetadataGateway = DataStoreGateway;

export const admin = 'root';

/** Starts the gateway; `engine: 'postgres'` answers undefined when DATABASE_URL is unset outside CI. */
export function startMetadataGateway(
  options: Omit<GatewayOptions, 'claims'> = {},
): Promise<MetadataGateway | undefined> {
  return startDataStoreGateway({
    ...options,
    claims: (user) => (user === admin ? { realm_access: { roles: ['de-admin'] } } : {}),
  });
}
