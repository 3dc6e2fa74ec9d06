import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import * as yup from 'yup';
import { apiTitle, buildOpenApiDocument } from './openapi';
import { defineRoute, type AnyRoute } from './route';

const swaggerUiDir = path.dirname(require.resolve('swagger-ui-dist/package.json'));
const swaggerUiVersion = (require('swagger-ui-dist/package.json') as { version: string }).version;
// The files of the docs page, served from the npm package with their content types, so the docs work offline.
const swaggerAssets: Record<string, string> = {
  'swagger-ui.css': 'text/css',
  'index.css': 'text/css',
  'swagger-ui-bundle.js': 'application/javascript',
  'favicon-32x32.png': 'image/png',
};
const assetsPrefix = '/api/v1/docs/assets';

/** Modules of `routes`, sorted: each gets its own schema and docs pages. */
function modulesOf(routes: readonly AnyRoute[]): string[] {
  return [...new Set(routes.filter((route) => !route.hidden).map((route) => route.module))].sort();
}

/**
 * The documentation routes for `routes`: the OpenAPI document and Swagger UI of the whole API
 * (`/api/v1/schema/`, `/api/v1/docs/`) and of each module (`/api/v1/{module}/schema/`, `/api/v1/{module}/docs/`).
 * Documents are built once here, from the same declarations the router uses.
 */
export function docsRoutes(routes: readonly AnyRoute[], version: string): AnyRoute[] {
  const scopes: { prefix: string; module?: string }[] = [
    { prefix: '/api/v1' },
    ...modulesOf(routes).map((module) => ({ prefix: `/api/v1/${module}`, module })),
  ];
  return [
    ...scopes.flatMap((scope) => scopeRoutes(routes, scope, version)),
    defineRoute({
      method: 'get',
      path: `${assetsPrefix}/{version}/{file}`,
      module: 'docs',
      operationId: 'getDocsAsset',
      summary: 'Swagger UI asset',
      access: 'public',
      hidden: true,
      params: yup.object({
        version: yup.string().oneOf([swaggerUiVersion]).required(),
        file: yup.string().oneOf(Object.keys(swaggerAssets)).required(),
      }),
      handler: ({ params, ctx }) => {
        ctx.type = swaggerAssets[params.file]!;
        ctx.set('Cache-Control', 'public, max-age=86400');
        ctx.body = fs.createReadStream(path.join(swaggerUiDir, params.file));
        return undefined;
      },
    }),
  ];
}

/**
 * The Swagger UI page of one scope, every file from this server, and its policy. Swagger UI's base layout,
 * without the standalone preset: that one adds a top bar whose box loads any URL, and a badge that sends the
 * document's URL to validator.swagger.io and shows the image it answers.
 */
function swaggerPage(title: string, schemaUrl: string): { html: string; policy: string } {
  const assets = `${assetsPrefix}/${swaggerUiVersion}`;
  // filter: a box that narrows the list to the tags (modules) matching it, for the whole API's 150 operations.
  // JSON with '<' escaped: no "</script>" can end the script early.
  const options = JSON.stringify({ url: schemaUrl, dom_id: '#swagger-ui', filter: true }).replaceAll('<', '\\u003c');
  const script = `window.ui = SwaggerUIBundle(${options});`;
  const html = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>${title}</title>
<link rel="stylesheet" href="${assets}/swagger-ui.css">
<link rel="stylesheet" href="${assets}/index.css">
<link rel="icon" type="image/png" href="${assets}/favicon-32x32.png">
</head>
<body>
<div id="swagger-ui"></div>
<script src="${assets}/swagger-ui-bundle.js"></script>
<script>${script}</script>
</body>
</html>
`;
  return { html, policy: docsPagePolicy(script) };
}

/**
 * The docs page's policy: everything from this server only, and its inline script allowed by its hash, so no
 * injected script would run. Inline styles stay allowed: Swagger UI sets some, and a style runs no code.
 */
function docsPagePolicy(inlineScript: string): string {
  const hash = createHash('sha256').update(inlineScript).digest('base64');
  return `default-src 'none'; script-src 'self' 'sha256-${hash}'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'`;
}

function scopeRoutes(routes: readonly AnyRoute[], scope: { prefix: string; module?: string }, version: string): AnyRoute[] {
  const document = buildOpenApiDocument(routes, { title: apiTitle, version, module: scope.module });
  const name = scope.module ?? 'all';
  const page = swaggerPage(scope.module === undefined ? apiTitle : `${apiTitle}: ${scope.module}`, `${scope.prefix}/schema/`);
  return [
    defineRoute({
      method: 'get',
      path: `${scope.prefix}/schema/`,
      module: 'docs',
      operationId: `getSchema_${name}`,
      summary: `OpenAPI document (${name})`,
      access: 'public',
      hidden: true,
      handler: () => document,
    }),
    defineRoute({
      method: 'get',
      path: `${scope.prefix}/docs/`,
      module: 'docs',
      operationId: `getDocs_${name}`,
      summary: `Interactive documentation (${name})`,
      access: 'public',
      hidden: true,
      handler: ({ ctx }) => {
        ctx.type = 'text/html';
        ctx.body = page.html;
        ctx.set('Content-Security-Policy', page.policy);
        ctx.set('Cache-Control', 'no-cache');
        return undefined;
      },
    }),
  ];
}
