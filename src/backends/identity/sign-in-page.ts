// The sign-in page of the embedded identity provider: self-contained HTML (no external assets,
// no script), posting the user's name and password back to the authorize endpoint with the
// authorization request and the form token (against cross-site request forgery) carried in hidden
// fields; and the headers of its pages.
import { hashSource, pageHeaders } from '../../common/page-headers.ts';

const escapes: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => escapes[character]!);
}

const style = `
body{font-family:system-ui,sans-serif;background:#f3f5f7;margin:0;display:flex;min-height:100vh;align-items:center;justify-content:center}
main{background:#fff;padding:2rem 2.5rem;border-radius:8px;box-shadow:0 2px 12px rgba(0,0,0,.12);width:20rem}
h1{font-size:1.3rem;margin:0 0 1.2rem}
label{display:block;margin:.8rem 0 .3rem;font-size:.9rem}
input[type=text],input[type=password]{width:100%;box-sizing:border-box;padding:.5rem;font-size:1rem;border:1px solid #bbb;border-radius:4px}
button{margin-top:1.2rem;width:100%;padding:.6rem;font-size:1rem;background:#0a5eb0;color:#fff;border:0;border-radius:4px;cursor:pointer}
.error{color:#a40000;background:#fdecea;padding:.5rem;border-radius:4px;font-size:.9rem}`;

/**
 * The headers of the provider's pages: they load nothing but their own style, and no site may
 * frame them (clickjacking the sign-in form); never kept by a cache.
 */
export const pageSecurity = {
  ...pageHeaders(`default-src 'none'; style-src ${hashSource(style)}; base-uri 'none'`, "'none'"),
  'cache-control': 'no-store',
};

/** The hidden field of the form token; its cookie is the realm's `IDP_FORM`. */
export const formTokenField = 'form_token';

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escapeHtml(title)}</title><style>${style}</style></head>
<body><main>${body}</main></body></html>
`;
}

export function signInPage(options: {
  realm: string;
  action: string;
  fields: Record<string, string>;
  /** The browser's form token, posted back with the form. */
  formToken: string;
  username?: string;
  error?: string;
}): string {
  const hidden = Object.entries({ ...options.fields, [formTokenField]: options.formToken })
    .map(
      ([name, value]) =>
        `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`,
    )
    .join('\n');
  return page(
    `Sign in to ${options.realm}`,
    `<h1>Sign in to ${escapeHtml(options.realm)}</h1>
${options.error ? `<p class="error" id="error" role="alert">${escapeHtml(options.error)}</p>` : ''}
<form method="post" action="${escapeHtml(options.action)}" id="sign-in">
${hidden}
<label for="username">Username</label>
<input type="text" id="username" name="username" autocomplete="username" autofocus value="${escapeHtml(options.username ?? '')}">
<label for="password">Password</label>
<input type="password" id="password" name="password" autocomplete="current-password">
<button type="submit" id="sign-in-button">Sign in</button>
</form>`,
  );
}

/** What a locked sign-in is told: how long to wait, in seconds or whole minutes. */
export function lockedMessage(retryAfterSeconds: number): string {
  const wait =
    retryAfterSeconds < 90
      ? `${retryAfterSeconds} seconds`
      : `${Math.ceil(retryAfterSeconds / 60)} minutes`;
  return `Too many failed sign-ins. Try again in ${wait}.`;
}

export function messagePage(title: string, message: string): string {
  return page(title, `<h1>${escapeHtml(title)}</h1><p id="message">${escapeHtml(message)}</p>`);
}
