# The service image. Bun comes from npm, as in development: package.json's devDependency, pinned
# by package-lock.json, so the image runs the Bun the suite ran on (the node image only brings npm).
# Untested here (no Docker on the dev machine); the same steps are run outside Docker by hand.
FROM node:22-bookworm-slim
WORKDIR /app
# Dependencies in a layer of their own, rebuilt only when the lock file changes. Install scripts
# wait for the sources: bun's own (it links the platform binary) runs now, the
# dashboard build once web/ is here.
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund && npm rebuild bun
COPY src ./src
COPY web ./web
COPY sql ./sql
COPY clickhouse ./clickhouse
# hookcap/client and the CLI: package.json's `exports` (client/dist) and `bin` (cli/dist/hookcap.js)
# point at their Node builds, so an image that holds the package holds them built.
COPY client ./client
COPY cli ./cli
# The operator command (docs/operations.md): docker compose exec app1 node_modules/.bin/bun scripts/admin.ts …
COPY scripts/admin.ts ./scripts/admin.ts
# The install scripts skipped above: package.json's postinstall, the dashboard, the client and the
# CLI, in that order (one list, kept there).
RUN npm run postinstall
# Private to the service (docs/security.md, "The data directory is private"); a new named volume
# mounted here takes this mode from the image.
RUN mkdir -m 700 /data
ENV NODE_ENV=production PORT=3000 DATA_DIR=/data
EXPOSE 3000
CMD ["node_modules/.bin/bun", "src/main.ts"]
