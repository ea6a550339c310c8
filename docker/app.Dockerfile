# perflab's web app, worker and migrations in one image: the installed workspace (pnpm's node_modules
# with its relative links), the built web app, k6 and the natively built servers and fixtures.
# Built by `scripts/docker/build-images.sh --apps`, which streams the repository in as the context.
# NODE_IMAGE defaults to the official image; offline, the build script passes the local perflab/node.
ARG NODE_IMAGE=node:20-bookworm-slim
FROM ${NODE_IMAGE}
# The worker's local fixtures run a dedicated redis-server; the docker CLI is not needed (dockerode).
RUN apt-get update -q \
 && apt-get install -y -q --no-install-recommends redis-server ca-certificates \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY . /app
ENV NODE_ENV=production NEXT_TELEMETRY_DISABLED=1
# web by default; compose runs the worker and migrations with other commands.
CMD ["sh", "-c", "cd apps/web && exec node_modules/.bin/next start -p \"${PORT:-3000}\" -H \"${HOSTNAME:-0.0.0.0}\""]
