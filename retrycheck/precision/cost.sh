#!/usr/bin/env bash
# cost.sh RETRYCHECK MODULE@VERSION...: time and peak memory of go vet beside
# go vet -vettool=RETRYCHECK and RETRYCHECK standalone (which runs itself as go vet's tool),
# on each module (downloaded from the module proxy, copied to a work directory). Every run
# starts from its own copy of one build cache, warmed by a go vet whose tool runs no
# analyzer (retrycheck with every check turned off: go vet prepares what it needs, cgo's
# output included, and caches no result of a measured run), so each pays for analysis
# alone, vet's analyzers or retrycheck's, over every package and its dependencies (both
# have facts). Prints one line per run from /usr/bin/time -v: wall seconds, user+system
# seconds, maximum resident set size of any one process. Needs the network; not run by
# CI. Measure on a quiet machine: the figures are wall-clock. WORK (default a new
# temporary directory) keeps the module copies and the warmed caches between runs; a
# module's run needs room for two copies of its cache.
set -euo pipefail
tool=$(realpath "$1"); shift
work=${WORK:-$(mktemp -d)}
export GOWORK=off GOFLAGS=-mod=mod GOTOOLCHAIN=local
measure() { # label command...
	local label=$1
	shift
	/usr/bin/time -v "$@" >/dev/null 2>"$work/time.txt" || true
	awk -v label="$label" -F': ' '
		/Elapsed \(wall clock\)/ { n = split($2, t, ":"); wall = (n == 3) ? t[1]*3600 + t[2]*60 + t[3] : t[1]*60 + t[2] }
		/User time/ { cpu += $2 } /System time/ { cpu += $2 }
		/Maximum resident set size/ { rss = $2 }
		END { printf "%-40s wall %7.1f s  cpu %7.1f s  max RSS %6.0f MB\n", label, wall, cpu, rss / 1024 }' "$work/time.txt"
}
for m in "$@"; do
	dir=$(go mod download -json "$m" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
	src="$work/src/${m//[\/@]/_}"
	[ -d "$src" ] || { mkdir -p "$work/src"; cp -r "$dir" "$src"; chmod -R u+w "$src"; }
	cd "$src"
	base="$work/cache-${m//[\/@]/_}"
	if [ ! -d "$base" ]; then # prepare everything vet needs (cgo output, ...), once
		GOCACHE="$base" go vet -vettool="$tool" -retrynested=false -retrywrite=false -retrybody=false \
			-retryrewind=false -retrysleep=false -retryunbounded=false -retrycancel=false -retryctx=false ./... >/dev/null 2>&1 || true
	fi
	echo "== $m ($(go list ./... 2>/dev/null | wc -l) packages)"
	for run in vet vettool standalone; do
		rm -rf "$work/c"
		cp -r "$base" "$work/c"
		case $run in
		vet) GOCACHE="$work/c" measure "go vet ./..." go vet ./... ;;
		vettool) GOCACHE="$work/c" measure "go vet -vettool=retrycheck ./..." go vet -vettool="$tool" ./... ;;
		standalone) GOCACHE="$work/c" measure "retrycheck ./... (standalone)" "$tool" ./... ;;
		esac
	done
	rm -rf "$work/c"
	cd - >/dev/null
done
