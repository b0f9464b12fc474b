# Kontor, production image on Node 24 (LTS).
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# The workspaces' manifests, so npm ci installs what the web app's build needs.
COPY clients/typescript/package.json ./clients/typescript/
COPY web/package.json ./web/
RUN npm ci --ignore-scripts && npm rebuild better-sqlite3 esbuild
COPY tsconfig.json ./
COPY scripts/build.mjs ./scripts/
COPY src ./src
COPY bin ./bin
# The web app: built into web/dist by the same build step (Vite), served by the API at /.
COPY web ./web
RUN npm run build && npm prune --omit=dev

FROM node:24-bookworm-slim
# Fonts and libraries the bundled headless Chromium needs to render PDFs.
RUN apt-get update && apt-get install -y --no-install-recommends \
      fonts-dejavu-core libnss3 libgbm1 libasound2 ca-certificates \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /app
ENV NODE_ENV=production HOST=0.0.0.0 PORT=3000 DATA_DIR=/data
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/web/dist ./web/dist
COPY --from=build /app/bin ./bin
COPY package.json ./
RUN mkdir -p /data && chown node:node /data
USER node
EXPOSE 3000
# SIGTERM reaches node directly (exec form), which finishes in-flight requests and exits.
CMD ["node", "dist/server.js"]
