// The sign-in page of the embedded identity provider: self-contained HTML (no external assets,
// no script), posting the user's name and password back to the authorize endpoint with the
// authorization request carried in hidden fields.

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
  username?: string;
  error?: string;
}): string {
  const hidden = Object.entries(options.fields)
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

export function messagePage(title: string, message: string): string {
  return page(title, `<h1>${escapeHtml(title)}</h1><p id="message">${escapeHtml(message)}</p>`);
}
