import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { koaSwagger } from 'koa2-swagger-ui';
import * as yup from 'yup';
import { apiTitle, buildOpenApiDocument } from './openapi';
import { defineRoute, type AnyRoute } from './route';


const swaggerUiDir = path.dirname(require.resolve('swagger-ui-dist/package.json'));
const swaggerUiVersion = (require('swagger-ui-dist/package.json') as { version: string }).version;
// The Swagger UI page asks for these files; we serve them from the npm package, so the docs work offline.
const swaggerAssets: Record<string, { file: string; type: string }> = {
  'swagger-ui.min.css': { file: 'swagger-ui.css', type: 'text/css' },
  'swagger-ui-bundle.js': { file: 'swagger-ui-bundle.js', type: 'application/javascript' },
  'swagger-ui-standalone-preset.js': { file: 'swagger-ui-standalone-preset.js', type: 'application/javascript' },
  'favicon.png': { file: 'favicon-32x32.png', type: 'image/png' },
};
const assetsPrefix = '/api/v1/docs/assets';

/** Modules of `routes`, sorted: each gets its own schema and docs pages. */
export function modulesOf(routes: readonly AnyRoute[]): string[] {
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
        const asset = swaggerAssets[params.file]!;
        ctx.type = asset.type;
        ctx.set('Cache-Control', 'public, max-age=86400');
        ctx.body = fs.createReadStream(path.join(swaggerUiDir, asset.file));
        return undefined;
      },
    }),
  ];
}

/**
 * The docs page's policy: its assets from this server only, and its inline scripts allowed by their hashes,
 * so no injected script would run. Inline styles stay allowed: Swagger UI sets some, and a style runs no code.
 */
function docsPagePolicy(html: string): string {
  const scripts = [...html.matchAll(/<script(?![^>]*\ssrc=)[^>]*>([\s\S]*?)<\/script>/g)].map((match) => `'sha256-${createHash('sha256').update(match[1]!).digest('base64')}'`);
  return `default-src 'none'; script-src 'self' ${scripts.join(' ')}; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; font-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'`;
}

function scopeRoutes(routes: readonly AnyRoute[], scope: { prefix: string; module?: string }, version: string): AnyRoute[] {
  const document = buildOpenApiDocument(routes, { title: apiTitle, version, module: scope.module });
  const name = scope.module ?? 'all';
  const swaggerPage = koaSwagger({
    routePrefix: false,
    title: scope.module === undefined ? apiTitle : `${apiTitle}: ${scope.module}`,
    swaggerOptions: { url: `${scope.prefix}/schema/` },
    swaggerCdnUrl: assetsPrefix,
    swaggerVersion: swaggerUiVersion,
    favicon: `${assetsPrefix}/${swaggerUiVersion}/favicon.png`,
    hideTopbar: true,
  });
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
      handler: async ({ ctx }) => {
        await swaggerPage(ctx, async () => undefined);
        ctx.set('Content-Security-Policy', docsPagePolicy(String(ctx.body)));
        ctx.set('Cache-Control', 'no-cache');
        return undefined;
      },
    }),
  ];
}
