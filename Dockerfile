# syntax=docker/dockerfile:1
# One image for both processes of the production deployment (see docker-compose.yml):
#   API (default):  docker run coopbank                                   -> dist/runtime/api-main.js
#   worker:         docker run coopbank node dist/runtime/worker-main.js
#   migrations:     docker run coopbank node dist/runtime/migrate-main.js (the API also applies them at start)
# The image runs the compiled JavaScript of `npm run build` (dist/): neither TypeScript nor tsx is in it.

# The Node.js release the project is developed and tested with.
ARG NODE_IMAGE=node:20.20.2-bookworm-slim

FROM ${NODE_IMAGE} AS npm11
# package-lock.json is written by npm 11, and only npm 11 honours package.json "allowScripts" (the install
# scripts the project denies); the npm 10 bundled with Node 20 would run them all. This npm stays in the
# stages that install (build, deps), out of the final image.
RUN npm install --global --no-audit --no-fund npm@11.19.1 && npm cache clean --force

FROM npm11 AS build
WORKDIR /app
# Manifests first: the dependency layers are rebuilt only when the dependencies change, not on every source edit.
COPY package.json package-lock.json ./
# With the dev dependencies: the compiler.
RUN npm ci --no-audit --no-fund
# The folders tsconfig.build.json compiles, and fixtures/, whose CSV the build copies into dist/.
# test/runtime/compiled.test.ts builds from what these COPY instructions copy, and runs the result.
COPY tsconfig.json tsconfig.build.json ./
COPY activities ./activities
COPY api ./api
COPY db ./db
COPY domain ./domain
COPY fixtures ./fixtures
COPY runtime ./runtime
COPY workflows ./workflows
RUN npm run build

# The production dependencies alone, for the final image.
FROM npm11 AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

FROM ${NODE_IMAGE}
# The commit the image is built from, a label of the coopbank_build_info metric:
#   docker build --build-arg GIT_COMMIT=$(git rev-parse HEAD) .   (empty: the label reads "unknown")
ARG GIT_COMMIT=""
ENV NODE_ENV=production \
    NPM_CONFIG_UPDATE_NOTIFIER=false \
    PORT=8000 \
    HOST=0.0.0.0 \
    GIT_COMMIT=${GIT_COMMIT}
WORKDIR /app
# Everything stays owned by root and read-only to the `node` user the processes run as.
COPY --from=deps /app/node_modules ./node_modules
# dist/ holds everything the processes read besides node_modules: the compiled code (migrations and the
# workflows the worker bundles at start included), package.json (the version the API reports) and fixtures/.
COPY --from=build /app/dist ./dist
USER node
EXPOSE 8000
# The `api` script of package.json, run by node itself rather than through `npm run api`: npm hands
# SIGTERM to the `sh -c` it starts, which dies without passing it on, so node would be killed without
# draining its requests (or, for the worker, its activities) on every `docker stop`.
# test/compose.test.ts checks that this stays the same command as the package.json script.
CMD ["node", "dist/runtime/api-main.js"]
