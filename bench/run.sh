#!/usr/bin/env bash
# Runs the comparison benchmarks and prints one benchstat table per family.
#
#   bench/run.sh                 # every benchmark, -count 6
#   COUNT=10 bench/run.sh Do     # a -bench pattern, another count
#   BENCHTIME=100ms bench/run.sh # a quick, noisier run
#
# The raw output is kept in bench/results/latest.txt. Run it on a quiet machine: timings
# depend on what else runs; allocations do not.
set -euo pipefail
cd "$(dirname "$0")"

BENCHSTAT=golang.org/x/perf/cmd/benchstat@v0.0.0-20260908200009-22c9c6c9d4da
pattern="${1:-.}"
count="${COUNT:-6}"

mkdir -p results
go version | tee results/latest.txt
go list -m all | grep -E 'cenkalti|avast|sethvargo|retryablehttp|failsafe|gobreaker|grpc-ecosystem|google.golang.org/grpc ' | tee -a results/latest.txt
go test -run '^$' -bench "$pattern" -benchmem -count "$count" -benchtime "${BENCHTIME:-1s}" . | tee -a results/latest.txt
echo
# One table per family: one row per benchmark, one column per library. benchstat compares
# each column with the first one seen (retry for Do and Breaker, net-http for HTTP, grpc for
# GRPCUnary).
for family in Do HTTPGet BreakerSuccess GRPCUnary FleetBreakerCall DistributedBreaker; do
	grep -E "^(goos|goarch|pkg|cpu):|^Benchmark${family}" results/latest.txt > "results/${family}.txt"
	echo "## ${family}"
	go run "$BENCHSTAT" -col /lib "results/${family}.txt"
	echo
done
