# syntax=docker/dockerfile:1
# One image for both processes of the production deployment (see docker-compose.yml):
#   API (default):  docker run coopbank                 -> runtime/api-main.ts
#   worker:         docker run coopbank node --import tsx runtime/worker-main.ts
# The processes run the TypeScript sources through tsx (a production dependency): there is no build step.

# The Node.js release the project is developed and tested with.
ARG NODE_IMAGE=node:20.20.2-bookworm-slim

FROM ${NODE_IMAGE} AS deps
WORKDIR /app
# package-lock.json is written by npm 11, and only npm 11 honours package.json "allowScripts" (the install
# scripts the project denies); the npm 10 bundled with Node 20 would run them all. This npm stays in this stage.
RUN npm install --global --no-audit --no-fund npm@11.19.1 && npm cache clean --force
# Manifests first: this layer is rebuilt only when the dependencies change, not on every source edit.
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

FROM ${NODE_IMAGE}
ENV NODE_ENV=production \
    NPM_CONFIG_UPDATE_NOTIFIER=false \
    PORT=8000
WORKDIR /app
# Everything stays owned by root and read-only to the `node` user the processes run as.
COPY --from=deps /app/node_modules ./node_modules
COPY package.json package-lock.json tsconfig.json ./
COPY activities ./activities
COPY api ./api
COPY db ./db
COPY domain ./domain
# Reference data the migrations load (the PCEMF chart) and the default accounting rules.
COPY fixtures ./fixtures/
COPY runtime ./runtime
COPY scripts ./scripts
COPY workflows ./workflows
USER node
EXPOSE 8000
# The `api` script of package.json, run by node itself rather than through `npm run api`: npm hands
# SIGTERM to the `sh -c` it starts, which dies without passing it on, so node would be killed without
# draining its requests (or, for the worker, its activities) on every `docker stop`.
# test/compose.test.ts checks that this stays the same command as the package.json script.
CMD ["node", "--import", "tsx", "runtime/api-main.ts"]
