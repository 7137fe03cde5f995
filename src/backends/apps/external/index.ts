// The external room of the apps service: its links to services outside the platform. OAuth access
// to third-party APIs (their token endpoints, users' tokens sealed at rest, the access-code routes)
// and users' webhooks (kept and delivered to by the notification agent). Uses the shared room.
export { authRedirects, registerOAuthRoutes, type OAuthDeps } from './oauth-routes.ts';
export { configuredOAuthClients, OAuthTokens } from './oauth-tokens.ts';
export { TokenCipher, tokenEncryptionKey } from './token-cipher.ts';
export { webhookRoutes } from './webhook-routes.ts';
export { documented } from './documented.ts';
