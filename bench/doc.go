// Package bench holds benchmarks that compare package retry with peer libraries on the same
// work (see README.md and run.sh). It is its own module so that the peers never enter the
// library's go.mod; nothing imports it. The benchmarks are in the _test.go files; run them
// with run.sh, or `go test -run '^$' -bench . -benchmem`.
package bench
