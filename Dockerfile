# syntax=docker/dockerfile:1
# The whole product on one machine (`go run ./local`) as a container, for
# users who have Docker:
#   docker build -t insightedge-local .
#   docker run --rm -p 8000:8000 -v insightedge-data:/data insightedge-local
# or `docker compose up` (compose.yaml: the product and DynamoDB Local).
# Without Docker, `go run ./infra/images/cmd/build-images` makes the same
# kind of image (same entrypoint, user, environment) with no engine.

FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -buildvcs=false -o /out/insightedge ./local \
 && mkdir -p /out/data /out/tmp

# The PDF writer's font (shared/office/pdf looks for it here).
FROM debian:bookworm-slim AS fonts
RUN apt-get update \
 && apt-get install -y --no-install-recommends fonts-lxgw-wenkai \
 && rm -rf /var/lib/apt/lists/*

FROM scratch
COPY --from=fonts /usr/share/fonts/truetype/lxgw-wenkai/LXGWWenKai-Regular.ttf /usr/share/fonts/truetype/lxgw-wenkai/
COPY --from=build /out/insightedge /app/insightedge
COPY --from=build --chown=65532:65532 /out/data /data
COPY --from=build --chown=65532:65532 /out/tmp /tmp
USER 65532:65532
WORKDIR /app
ENV PATH=/usr/local/bin:/usr/bin:/bin ADDR=0.0.0.0:8000 DATA_DIR=/data TZ=UTC
VOLUME /data
EXPOSE 8000
ENTRYPOINT ["/app/insightedge"]
CMD ["serve"]
