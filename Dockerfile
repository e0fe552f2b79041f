# The service image: Bun runs the TypeScript directly.
FROM oven/bun:1.2
WORKDIR /app
COPY package.json package-lock.json ./
RUN bun install --production --ignore-scripts
COPY src ./src
COPY sql ./sql
COPY clickhouse ./clickhouse
ENV NODE_ENV=production PORT=3000 DATA_DIR=/data
EXPOSE 3000
CMD ["bun", "src/main.ts"]
