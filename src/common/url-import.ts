// The platform's URL import, as both the gateway (POST /fileio/urlupload) and the apps service
// (which runs it) name things: the built-in URL import app, and the file name an import gets.

/** The built-in "URL import" app (system `de`); its id is fixed, so every installation agrees on it. */
export const urlImportApp = { systemId: 'de', id: '7a2d6f0e-1b1c-4c55-9a51-0c1f1a000001' } as const;

/** The last path segment, URL-decoded, else the host (routes.md §6). */
export function importName(url: URL): string {
  const segment = url.pathname.split('/').filter(Boolean).pop();
  if (!segment) return url.hostname.replace(/^\[|\]$/g, '');
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
