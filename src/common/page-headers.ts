// The security headers of every HTML answer of the gateway (docs/authentication.md, "Pages and
// framing"): the embedded identity provider's pages and the docs page. Written out here rather
// than with @fastify/helmet, which would put a dozen headers on every JSON answer and relayed
// backend answer as well; only pages need them, and each page says what it loads and who may
// frame it.
import { createHash } from 'node:crypto';

/** A CSP source for exactly this inline script or style (CSP3 hash source). */
export const hashSource = (text: string) =>
  `'sha256-${createHash('sha256').update(text).digest('base64')}'`;

/**
 * The headers of a page besides its Content-Security-Policy: its type is never guessed, it sends
 * no Referer on (the identity provider's URLs carry the authorization request), and
 * X-Frame-Options says who may frame it to browsers that predate frame-ancestors, where it can
 * (DENY for `'none'`, SAMEORIGIN for `'self'`; it cannot name other origins).
 */
export function pageHeadersBesidesPolicy(frameAncestors: string): Record<string, string> {
  const frameOptions =
    frameAncestors === "'none'" ? 'DENY' : frameAncestors === "'self'" ? 'SAMEORIGIN' : undefined;
  return {
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    ...(frameOptions ? { 'x-frame-options': frameOptions } : {}),
  };
}

/**
 * The headers of a page whose Content-Security-Policy is `policy` (what it may load) and whose
 * `frameAncestors` says who may frame it: `'none'`, `'self'`, or origins.
 */
export function pageHeaders(policy: string, frameAncestors: string): Record<string, string> {
  return {
    'content-security-policy': `${policy}; frame-ancestors ${frameAncestors}`,
    ...pageHeadersBesidesPolicy(frameAncestors),
  };
}
