#!/bin/sh
# Starts N svc replicas (default 3) on one PostgreSQL database, on ports 8091, 8092, …, each with its own data
# directory under ./replicas/ and its own replica id. Stop them with Ctrl-C.
#   SVC_DATABASE_URL=postgres://user@db/svc deploy/run-replicas.sh 3
# Then put a load balancer in front (deploy/haproxy.cfg).
set -eu
count=${1:-3}
: "${SVC_DATABASE_URL:?set SVC_DATABASE_URL to the PostgreSQL database the replicas share}"
cd "$(dirname "$0")/.."
trap 'kill 0' INT TERM EXIT
i=1
while [ "$i" -le "$count" ]; do
  SVC_PORT=$((8090 + i)) SVC_HTTPS_PORT=off SVC_DATA_DIR="replicas/r$i" SVC_REPLICA_ID="r$i" SVC_TRUST_PROXY=127.0.0.1 \
    node packages/server/dist/cli.js serve &
  i=$((i + 1))
done
wait
