// A gateway with every embedded backend (the QMS's included), an administrator (`root`) and service
// accounts whose tokens carry only `preferred_username` and `realm_access` (their roles by name),
// for the subscription and usage tests.
import { startDataStoreGateway, type DataStoreGateway } from './data-store.ts';

export const admin = 'root';

/** Service accounts and the realm roles their tokens carry. */
export const serviceAccounts: Record<string, string[]> = {
  'service-account-billing': ['subscription-updater'],
  'service-account-mailer': ['emailer'],
  'service-account-directory': ['ldap-reader'],
  'service-account-custom': ['qms-writer'],
};

/** Starts the gateway; `engine: 'postgres'` answers undefined when DATABASE_URL is unset outside CI. */
export function startQmsGateway(
  options: { engine?: 'sqlite' | 'postgres'; env?: Record<string, string> } = {},
): Promise<DataStoreGateway | undefined> {
  return startDataStoreGateway({
    ...options,
    claims: (user) => {
      if (user === admin) return { realm_access: { roles: ['de-admin'] } };
      const roles = serviceAccounts[user];
      if (!roles) return {};
      // A service token: no email or names, only its username and realm roles.
      return {
        email: undefined,
        given_name: undefined,
        family_name: undefined,
        name: undefined,
        realm_access: { roles },
      };
    },
  });
}
