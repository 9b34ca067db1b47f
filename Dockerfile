# Image of `inv` (the `inv watch` daemon of deploy/, and every other command).
#   docker build -t ghcr.io/imageinventory/inv:0.1.0 .
# Multi-stage: the build stage compiles TypeScript with the dev dependencies; the runtime stage
# holds only production dependencies, the compiled JavaScript, the CRDs and the CRI protos, and
# runs as an unprivileged user (works with readOnlyRootFilesystem: nothing is written at run time).

# Node 24 LTS, pinned by the digest of the multi-platform image index (Node 24.18.1 on Debian
# bookworm, as published on 2026-07-30). To update: look up the current index digest of
# node:24-bookworm-slim (`docker buildx imagetools inspect node:24-bookworm-slim`, or
# docker-library/repo-info repos/node/remote/24-bookworm-slim.md) and replace it in all three
# stages; keep the major equal to the worker image's (scripts/node-runtime.mjs).
FROM node:24-bookworm-slim@sha256:235600a8101ab264e117b1768e925532262668dc9b581ef1dd7d96ced463b8e7 AS build
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json ./
COPY src ./src
COPY test ./test
COPY bench ./bench
COPY bin ./bin
COPY scripts/oclif-manifest.mjs ./scripts/
# The oclif manifest lets start-up load only the command being run.
RUN npx tsc -p tsconfig.json && node scripts/oclif-manifest.mjs

FROM node:24-bookworm-slim@sha256:235600a8101ab264e117b1768e925532262668dc9b581ef1dd7d96ced463b8e7 AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force

FROM node:24-bookworm-slim@sha256:235600a8101ab264e117b1768e925532262668dc9b581ef1dd7d96ced463b8e7
ENV NODE_ENV=production
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY package.json ./
COPY bin ./bin
COPY crds ./crds
COPY proto ./proto
COPY --from=build /src/dist/src ./dist/src
COPY --from=build /src/oclif.manifest.json ./
# 65532: the conventional "nonroot" UID; numeric so runAsNonRoot can verify it.
USER 65532:65532
ENTRYPOINT ["node", "/app/bin/run.js"]
CMD ["watch", "--leader-elect"]
