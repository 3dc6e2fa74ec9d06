import { apiTitle, buildOpenApiDocument } from '../api/openapi';
import { apiRoutes } from '../api/routes';
import { version } from '../package.json';

// `npm run openapi`: the whole OpenAPI document on stdout, without starting anything (for client generators).
process.stdout.write(`${JSON.stringify(buildOpenApiDocument(apiRoutes, { title: apiTitle, version }), null, 2)}\n`);
