# Image of `inv` (the `inv watch` daemon of deploy/, and every other command).
#   docker build -t ghcr.io/imageinventory/inv:0.1.0 .
# Two stages. The build stage compiles TypeScript and bundles the program (scripts/bundle.mjs:
# dist/bundle/, no node_modules needed at run time), strips the Node binary's symbols, and
# gathers exactly the shared libraries it links. The runtime stage starts from scratch and holds
# only those, plus the worker's compile cache: the same content as the worker image the local
# cluster builds (scripts/worker-image.mjs), so it is no bigger (test/nodes/worker-image.test.ts
# measures that one). It runs as an unprivileged user and works with readOnlyRootFilesystem.

# Node 24 LTS, pinned by the digest of the multi-platform image index (Node 24.18.1 on Debian
# bookworm, as published on 2026-07-30). To update: look up the current index digest of
# node:24-bookworm-slim (`docker buildx imagetools inspect node:24-bookworm-slim`, or
# docker-library/repo-info repos/node/remote/24-bookworm-slim.md) and replace it; keep the major
# equal to the worker image's (scripts/node-runtime.mjs).
FROM node:24-bookworm-slim@sha256:235600a8101ab264e117b1768e925532262668dc9b581ef1dd7d96ced463b8e7 AS build
RUN apt-get update && apt-get install -y --no-install-recommends binutils ca-certificates && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json .prettierrc.json ./
COPY src ./src
COPY test ./test
COPY bench ./bench
COPY bin ./bin
COPY proto ./proto
COPY crds ./crds
COPY scripts ./scripts
RUN npm run build
# The runtime's file system: node (stripped), the libraries it links (at the paths the loader
# looks them up), a passwd/group naming the unprivileged user, and the program.
RUN set -eux; \
    mkdir -p /rootfs/usr/bin /rootfs/etc /rootfs/tmp /rootfs/app/dist; \
    chmod 1777 /rootfs/tmp; \
    strip --strip-all -o /rootfs/usr/bin/node "$(command -v node)"; \
    /rootfs/usr/bin/node -e 'process.exit(0)'; \
    for lib in $(ldd "$(command -v node)" | grep -o '/[^ ]*'); do \
      mkdir -p "/rootfs$(dirname "$lib")"; cp -L "$lib" "/rootfs$lib"; \
    done; \
    printf 'root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n' > /rootfs/etc/passwd; \
    printf 'root:x:0:\nnonroot:x:65532:\n' > /rootfs/etc/group; \
    node -e "const p=require('./package.json');delete p.devDependencies;delete p.scripts;require('fs').writeFileSync('/rootfs/app/package.json',JSON.stringify(p,null,2)+'\n')"; \
    cp -r bin crds /rootfs/app/; \
    cp -r dist/bundle /rootfs/app/dist/
# Node's compile cache for the worker's start, made by the image's own node with the worker's
# NODE_OPTIONS (scripts/compile-cache.mjs; a worker Pod's read-only root cannot write one).
RUN node scripts/compile-cache.mjs /rootfs/usr/bin/node /rootfs/app && chmod -R a+rX /rootfs/app

# Trivy v0.74.0 for scan mode's scanner image, built from the Go module proxy as
# scripts/tools.mjs builds it for the tests (Go 1.26 needs the jsonv2 experiment for it). Pinned
# by digest like every stage, so a rebuilt tag cannot change what this builds; the registry is not
# reachable from the machines this is developed on, so the digest is the one that public builds
# pin for this tag: check it with `docker buildx imagetools inspect golang:1.26.8-bookworm`
# before a release, and move tag and digest together.
FROM golang:1.26.8-bookworm@sha256:a688600ca24f8a4d3ca77f95b0dd40704a9fc787c826660eb7ba0b641b8b175d AS trivy-build
RUN CGO_ENABLED=0 GOEXPERIMENT=jsonv2 GOBIN=/out go install -trimpath \
      -ldflags='-s -w -X github.com/aquasecurity/trivy/pkg/version/app.ver=0.74.0' \
      github.com/aquasecurity/trivy/cmd/trivy@v0.74.0

# The scanner image of scan mode (docs/scanner-contract.md): the same program, entered as the
# hidden `inv node-scan`, with Trivy at /trivy, CA certificates for Trivy's DB download, and its
# cache folder. `docker build --target trivy-scanner -t ghcr.io/imageinventory/inv-trivy-scanner:0.1.0 .`
# scripts/scanner-image.mjs builds the same layout without Docker for the local cluster.
FROM scratch AS trivy-scanner
COPY --from=build /rootfs /
COPY --from=build /etc/ssl/certs/ca-certificates.crt /etc/ssl/certs/ca-certificates.crt
COPY --from=trivy-build /out/trivy /trivy
COPY --from=build --chown=65532:65532 /rootfs/tmp /var/lib/trivy
ENV PATH=/usr/bin:/bin NODE_ENV=production \
    NODE_COMPILE_CACHE=/app/.node-compile-cache NODE_COMPILE_CACHE_PORTABLE=1
WORKDIR /app
USER 65532:65532
ENTRYPOINT ["/usr/bin/node", "/app/bin/run.js", "node-scan"]

# The default image: the daemon and every command.
FROM scratch
COPY --from=build /rootfs /
ENV PATH=/usr/bin:/bin NODE_ENV=production \
    NODE_COMPILE_CACHE=/app/.node-compile-cache NODE_COMPILE_CACHE_PORTABLE=1
WORKDIR /app
# 65532: the conventional "nonroot" UID; numeric so runAsNonRoot can verify it.
USER 65532:65532
ENTRYPOINT ["/usr/bin/node", "/app/bin/run.js"]
CMD ["watch", "--leader-elect"]
