import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Context, Middleware } from 'koa';
import { koaSwagger } from 'koa2-swagger-ui';
import * as yup from 'yup';
import { apiTitle, buildOpenApiDocument } from './openapi';
import { defineRoute, type AnyRoute } from './route';

const swaggerUiDir = path.dirname(require.resolve('swagger-ui-dist/package.json'));
const swaggerUiVersion = (require('swagger-ui-dist/package.json') as { version: string }).version;
/**
 * The files koa2-swagger-ui's page asks for, by the name it asks: the file of swagger-ui-dist served under it and
 * its content type, so the docs work offline. swagger-ui-dist ships one stylesheet, not minified.
 */
const swaggerAssets: Record<string, { file: string; type: string }> = {
  'swagger-ui.min.css': { file: 'swagger-ui.css', type: 'text/css' },
  'swagger-ui-bundle.js': { file: 'swagger-ui-bundle.js', type: 'application/javascript' },
  'swagger-ui-standalone-preset.js': { file: 'swagger-ui-standalone-preset.js', type: 'application/javascript' },
  'favicon-32x32.png': { file: 'favicon-32x32.png', type: 'image/png' },
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
 * The Swagger UI page of one scope, as koa2-swagger-ui (the design card's package) writes it, rendered once here,
 * every file from this server, and its policy. Its Swagger UI files come from our asset route (`swaggerCdnUrl`);
 * the standalone preset's top bar, whose box loads any URL, is hidden; no validator badge (it would send the
 * document's URL to validator.swagger.io). The template's Google Fonts link is cut out (docs/architecture.md §7).
 */
function swaggerPage(title: string, schemaUrl: string): { html: string; policy: string } {
  const middleware = koaSwagger({
    title,
    routePrefix: false,
    swaggerCdnUrl: assetsPrefix,
    swaggerVersion: swaggerUiVersion,
    favicon: `${assetsPrefix}/${swaggerUiVersion}/favicon-32x32.png`,
    hideTopbar: true,
    // filter: a box that narrows the list to the tags (modules) matching it, for the whole API's 150 operations.
    // The template writes these as JSON in a script, '<' not escaped: only our own paths go there, never input.
    swaggerOptions: { url: schemaUrl, dom_id: '#swagger-ui', filter: true, validatorUrl: null },
  });
  const html = withoutGoogleFonts(pageOf(middleware));
  const foreign = /\s(?:src|href)="(?!\/[^/])([^"]*)"/.exec(html);
  if (foreign) throw new Error(`the docs page would load ${foreign[1]} from another origin`);
  return { html, policy: docsPagePolicy(html) };
}

/** The page koa2-swagger-ui's middleware answers with `routePrefix: false`: it writes the body and calls nothing. */
function pageOf(middleware: Middleware): string {
  const response = { path: '/', type: '', body: '' };
  void middleware(response as unknown as Context, () => Promise.resolve());
  return response.body;
}

/**
 * The template's stylesheet of Google Fonts, removed: offline it would fail, and Swagger UI's own stylesheet
 * falls back to local fonts. Removing it, rather than letting the policy refuse it, keeps the page free of errors.
 */
function withoutGoogleFonts(html: string): string {
  return html.replace(/<link href="https:\/\/fonts\.googleapis\.com\/[^"]*" rel="stylesheet">\s*/, '');
}

/** The SHA-256 sources of a policy for these inline texts. */
const hashesOf = (texts: Iterable<string>) =>
  [...new Set(texts)].map((text) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`);

/**
 * The docs page's policy: everything from this server only, and the page's own inline script, style element and
 * style attribute allowed by their hashes, computed from the page itself: no injected script or style applies.
 * Swagger UI sets its other styles through the DOM, which a policy does not restrict.
 */
function docsPagePolicy(html: string): string {
  const scripts = hashesOf([...html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((match) => match[1]!));
  const styles = hashesOf([...html.matchAll(/<style>([\s\S]*?)<\/style>/g)].map((match) => match[1]!));
  const attributes = hashesOf([...html.matchAll(/\sstyle="([^"]*)"/g)].map((match) => match[1]!));
  const styleSources = [...styles, ...(attributes.length > 0 ? ["'unsafe-hashes'", ...attributes] : [])];
  return (
    `default-src 'none'; script-src 'self' ${scripts.join(' ')}; style-src 'self' ${styleSources.join(' ')}; ` +
    `img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'`
  );
}

function scopeRoutes(
  routes: readonly AnyRoute[],
  scope: { prefix: string; module?: string },
  version: string,
): AnyRoute[] {
  const document = buildOpenApiDocument(routes, { title: apiTitle, version, module: scope.module });
  const name = scope.module ?? 'all';
  const page = swaggerPage(
    scope.module === undefined ? apiTitle : `${apiTitle}: ${scope.module}`,
    `${scope.prefix}/schema/`,
  );
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
