# The service's container image (docs/deployment.md). Two stages: `build` installs every dependency
# and runs `npm run build`; the image gets only what runs: the Node.js binary, the built JavaScript
# (dist/, the console already bundled), package.json and the production dependencies. No
# TypeScript source or compiler, no esbuild, no npm, no dev dependencies.
#
# The bases are build arguments, so the image builds wherever a registry is reachable (the
# defaults) and where none is, from bases made locally from Debian's packages (.ci/image-test).
# BUILD_BASE needs node and npm; BASE needs only glibc and libstdc++ (any Debian or Ubuntu).
#   docker build -t compliance-data-service:0.2.0 .
ARG BUILD_BASE=node:24-bookworm-slim
ARG BASE=debian:bookworm-slim

FROM ${BUILD_BASE} AS build
WORKDIR /build
# The lockfile first, so the dependency layer is reused while only the source changes. The
# workspaces (packages/*) are the SDK and CLI published to npm, not part of the server.
COPY package.json package-lock.json ./
RUN npm ci --workspaces=false --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY scripts/build.ts scripts/
COPY src src
RUN npm run build
# The image's node_modules: production dependencies only, without install scripts (the one that
# has one, `node`, fetches the Node.js binary that this stage already has and the image copies).
RUN mkdir /app \
 && cp package.json package-lock.json /app/ \
 && cd /app \
 && npm ci --omit=dev --ignore-scripts --workspaces=false --no-audit --no-fund \
 && rm -rf node_modules/node node_modules/.bin/node \
 && cp -r /build/dist /app/dist

FROM ${BASE}
# A dedicated user without a login, owning only the data folder.
RUN groupadd --system --gid 10001 cds \
 && useradd --system --uid 10001 --gid cds --home-dir /nonexistent --no-create-home --shell /usr/sbin/nologin cds \
 && mkdir -p /data \
 && chown cds:cds /data
# Node.js 24 as package.json pins it (the `node` npm package ships the official binary).
COPY --from=build /build/node_modules/node/bin/node /usr/local/bin/node
COPY --from=build /app /app
RUN ln -s /app/dist/cli/main.js /usr/local/bin/cds
WORKDIR /app
# Listen on every interface of the container: publishing a port is what exposes it. The
# operations listener (/metrics, detailed /readyz) is on its own port; publish it only to the
# monitoring network. Without DATABASE_URL the embedded SQLite file and the uploaded files live
# in /data (a volume), and the first start loads the demo organization (DEMO_ON_EMPTY=false: not).
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000 \
    OPS_HOST=0.0.0.0 \
    OPS_PORT=9090 \
    DATA_DIR=/data \
    LOG_FORMAT=json
VOLUME ["/data"]
EXPOSE 3000 9090
USER cds:cds
# Liveness on the API port, with the Node.js the image already has (no curl in the image).
HEALTHCHECK --interval=15s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# SIGTERM: no new connections, requests in flight finish within SHUTDOWN_GRACE_MS, exit 0.
STOPSIGNAL SIGTERM
CMD ["node", "dist/main.js"]
