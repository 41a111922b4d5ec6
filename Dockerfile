# Fanion's container image. Build: `docker build -t fanion .` (or `podman build --format docker`:
# OCI's format has no HEALTHCHECK). Run and probes: docs/guides/operating.md, "Running the image".
#
# BASE is any Node.js LTS (22 or 24) image with Node in /usr/local, Debian underneath (apt-get, useradd),
# like the official one named by default; the image's test builds on a local one made the same way.
ARG BASE=node:22-bookworm-slim

# The build stage: every dependency (TypeScript, esbuild) to build dist/, then pruned to the
# production ones, which is what the runtime stage copies.
FROM ${BASE} AS build
# fs-ext (the data folder's lock) is a native addon compiled at install time: it needs a compiler,
# and node-gyp takes Node's headers from the Node in the image instead of downloading them.
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
ENV npm_config_nodedir=/usr/local npm_config_update_notifier=false npm_config_fund=false npm_config_audit=false
WORKDIR /src
# Dependencies first, in their own layer, so a change of the sources does not reinstall them.
# --ignore-scripts: the project's prepare step needs the sources (copied below), and no dependency's
# script runs but fs-ext's, the one that must (package.json's allowScripts).
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts && npm rebuild fs-ext
COPY tsconfig.json tsconfig.build.json ./
COPY scripts ./scripts
COPY src ./src
COPY ui ./ui
RUN npm run build && npm prune --omit=dev --ignore-scripts

# The runtime stage: Node, the production dependencies and dist/; no compiler, no npm in the path
# of a request or a signal.
FROM ${BASE}
ENV NODE_ENV=production \
    DATA_DIR=/data \
    PORT=4242 \
    MALLOC_ARENA_MAX=2
# A user of its own (not root, not the base's `node`): the data folder is the only place it writes.
RUN groupadd --system --gid 10001 fanion \
 && useradd --system --uid 10001 --gid fanion --home-dir /data --no-create-home --shell /usr/sbin/nologin fanion \
 && mkdir -p /data \
 && chown fanion:fanion /data
WORKDIR /app
COPY --from=build /src/package.json ./package.json
COPY --from=build /src/node_modules ./node_modules
COPY --from=build /src/dist/src ./dist/src
COPY --from=build /src/dist/ui ./dist/ui
# Data the server reads at start-up from beside package.json (the common-password list).
COPY assets ./assets
USER fanion
VOLUME ["/data"]
EXPOSE 4242
# Fanion drains on SIGTERM: stops accepting, ends SDK streams, finishes in-flight requests. Give it
# SHUTDOWN_TIMEOUT_MS (30 s) before a kill: `docker stop -t 35`, compose's stop_grace_period.
STOPSIGNAL SIGTERM
# Liveness (/health: 200 while the process lives, a cluster node waiting for its database
# included), not readiness (/ready), so a node that waits is not restarted. Node's own fetch: slim
# images have no curl.
HEALTHCHECK --interval=15s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||4242)+'/health').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# Node itself as PID 1, not npm: npm in between would forward one stop as two signals.
ENTRYPOINT ["node", "dist/src/entry/main.js"]
