module github.com/retrykit/retry

go 1.26

require (
	github.com/dunglas/httpsfv v1.1.2
	go.uber.org/goleak v1.3.0
	pgregory.net/rapid v1.3.0
)

require (
	golang.org/x/net v0.62.0
	golang.org/x/text v0.43.0 // indirect
)
