FROM node:26-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json nest-cli.json ormconfig.ts ./
COPY src ./src
# The one script the image runs besides the service: `docker run --rm <image> node dist/scripts/operator-key.js`
# prints a new operator bootstrap key.
COPY scripts/operator-key.ts ./scripts/
RUN npm run build && npm prune --omit=dev && rm -f dist/*.tsbuildinfo

FROM node:26-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production HOST=0.0.0.0 PORT=3000
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
COPY public ./public
USER node
EXPOSE 3000
# A cap on V8's old generation: without it V8 sizes the heap from the machine's memory and lets it grow to about
# twice what the service needs under load (docs/performance.md, "What was changed").
CMD ["node", "--max-old-space-size=192", "dist/src/main.js"]
