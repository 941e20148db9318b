module github.com/retrykit/retry/cmd/retry

go 1.26

require (
	codeberg.org/go-fonts/liberation v0.5.0
	github.com/redis/go-redis/v9 v9.23.0
	github.com/retrykit/retry v0.2.0
	github.com/retrykit/retry/redisfleet v0.2.0
	github.com/spf13/cobra v1.10.2
	github.com/spf13/pflag v1.0.9
	go.uber.org/goleak v1.3.0
	golang.org/x/image v0.30.0
	gonum.org/v1/plot v0.17.0
	gopkg.in/yaml.v3 v3.0.1
	pgregory.net/rapid v1.3.0
)

require (
	codeberg.org/go-latex/latex v0.2.0 // indirect
	github.com/ajstarks/svgo v0.0.0-20211024235047-1546f124cd8b // indirect
	github.com/inconshreveable/mousetrap v1.1.0 // indirect
	golang.org/x/text v0.28.0 // indirect
)
