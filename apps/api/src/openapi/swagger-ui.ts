import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/**
 * Swagger UI from the `swagger-ui-dist` package, served from node_modules (no CDN: the page works
 * offline). Only the files the page loads are exposed, by name; nothing else of the package is.
 */
let resolvedDir: string | null | undefined;

const swaggerUiDir = (): string | null => {
  if (resolvedDir === undefined) {
    try {
      resolvedDir = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
    } catch {
      resolvedDir = null; // the API serves on; the page's assets answer 404
    }
  }
  return resolvedDir;
};

export const DOCS_PATH = '/docs';
export const DOCUMENT_PATH = '/openapi.json';

const ASSET_TYPES: Readonly<Record<string, string>> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
  'favicon-16x16.png': 'image/png',
};

/** The file behind an asset name and its content type; null for any other name. */
export const swaggerUiAsset = (name: string): { readonly file: string; readonly type: string } | null => {
  const type = Object.hasOwn(ASSET_TYPES, name) ? ASSET_TYPES[name] : undefined;
  const dir = swaggerUiDir();
  return type === undefined || dir === null ? null : { file: join(dir, name), type };
};

/** Starts Swagger UI on the document; a script file rather than inline, so a strict CSP can allow it. */
export const INITIALIZER = `window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({
    url: '${DOCUMENT_PATH}',
    dom_id: '#swagger-ui',
    deepLinking: true,
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout',
  });
});
`;

export const INITIALIZER_NAME = 'leasehold-docs.js';

export const DOCS_PAGE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>Leasehold API</title>
    <link rel="stylesheet" href="${DOCS_PATH}/swagger-ui.css">
    <link rel="icon" type="image/png" href="${DOCS_PATH}/favicon-32x32.png" sizes="32x32">
    <link rel="icon" type="image/png" href="${DOCS_PATH}/favicon-16x16.png" sizes="16x16">
  </head>
  <body>
    <noscript>This page needs JavaScript; the document itself is at <a href="${DOCUMENT_PATH}">${DOCUMENT_PATH}</a>.</noscript>
    <div id="swagger-ui"></div>
    <script src="${DOCS_PATH}/swagger-ui-bundle.js"></script>
    <script src="${DOCS_PATH}/${INITIALIZER_NAME}"></script>
  </body>
</html>
`;
