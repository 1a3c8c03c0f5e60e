#!/usr/bin/env bash
# Where vaultd's time goes under load (the HTTP bench's follow-up when a target is missed):
# serves a demo database pinned to core 0 under `node --cpu-prof`, drives one route with wrk
# from core 1 (saturation, or a fixed rate with the bench's Lua pacer), stops the server with
# SIGTERM (the profile is written at exit) and prints self and inclusive time per function.
#
#   npm run build && bash bench/http/profile.sh '/v1/vaults/<id>' [rate|sat] [seconds]
#
# DB: $VAULTD_HTTP_BENCH_DIR/demo.duckdb as left by the bench (default /tmp/vaultd-http-bench),
# ACCEPT: the Accept-Encoding sent (default identity; e.g. 'gzip, deflate, br' for a browser's),
# or $DB. Output: $OUT (default /tmp/vaultd-http-profile).
set -euo pipefail
ROUTE=${1:?usage: profile.sh ROUTE [rate|sat] [seconds]}
MODE=${2:-sat}
SECONDS_=${3:-10}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BENCH_DIR=${VAULTD_HTTP_BENCH_DIR:-/tmp/vaultd-http-bench}
DB=${DB:-$BENCH_DIR/demo.duckdb}
OUT=${OUT:-/tmp/vaultd-http-profile}
ACCEPT=${ACCEPT:-identity}
PORT=${PORT:-$(node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")}
[ -f "$DB" ] || { echo "no database at $DB: run the HTTP bench first, or set DB" >&2; exit 2; }
rm -rf "$OUT" && mkdir -p "$OUT"
echo '{"rate_limits":{"anonymous_per_minute":1000000000,"keyed_per_minute":1000000000}}' > "$OUT/vaultd.json"

taskset -c 0 node --cpu-prof --cpu-prof-dir="$OUT" "$ROOT/bin/vaultd.js" serve --db "$DB" --port "$PORT" \
  --host 127.0.0.1 --no-jobs --config "$OUT/vaultd.json" > "$OUT/vaultd.log" 2>&1 &
PID=$!
trap 'kill -TERM $PID 2>/dev/null || true' EXIT
until curl -sf -o /dev/null "http://127.0.0.1:$PORT/v1/vaults"; do
  kill -0 $PID 2>/dev/null || { cat "$OUT/vaultd.log" >&2; exit 1; }
  sleep 0.05
done
SCRIPT=(${WRK_SCRIPT:+-s "$WRK_SCRIPT"})
if [ "$MODE" != sat ]; then
  node -e "import('$ROOT/dist/bench/http/wrk.js').then((w) => console.log(w.paceScript('$OUT', $MODE)))" > "$OUT/pace"
  SCRIPT=(-s "$(cat "$OUT/pace")")
fi
taskset -c 1 wrk -t1 -c64 -d"${SECONDS_}s" --latency -H "Accept-Encoding: $ACCEPT" "${SCRIPT[@]}" "http://127.0.0.1:$PORT$ROUTE" | tee "$OUT/wrk.txt"
kill -TERM $PID
wait $PID || true
trap - EXIT
PROFILE=$(ls "$OUT"/*.cpuprofile | head -1) # the main thread's (first) profile
echo "requests: $(grep -oE '^ *[0-9]+ requests' "$OUT/wrk.txt" | tr -d ' a-z'); profile: $PROFILE"
node "$ROOT/dist/bench/http/profileSummary.js" "$PROFILE" 25 self
node "$ROOT/dist/bench/http/profileSummary.js" "$PROFILE" 40 total
