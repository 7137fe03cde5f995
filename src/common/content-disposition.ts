/**
 * RFC 6266 `Content-Disposition` for a file name, used by the gateway and the data-info service
 * alike. Old clients read the ASCII `filename`, where non-ASCII characters, quotes, backslashes and
 * `%` (which some clients percent-decode) become `_`; others read the exact name as RFC 8187
 * `filename*`, whose attr-char leaves out `'()*` (encodeURIComponent keeps them).
 */
export function contentDisposition(kind: 'attachment' | 'inline', name: string): string {
  const fallback = name.replace(/[^\x20-\x7e]|["\\%]/g, '_');
  const encoded = encodeURIComponent(name).replace(
    /['()*]/g,
    (character) => `%${character.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `${kind}; filename="${fallback}"; filename*=UTF-8''${encoded}`;
}
