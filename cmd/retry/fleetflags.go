package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/spf13/pflag"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/breaker"
	"github.com/retrykit/retry/budget"
	"github.com/retrykit/retry/fleet"
	"github.com/retrykit/retry/redisfleet"
	"github.com/retrykit/retry/retryhttp"
)

// The fleet's bounds for a short-lived process: its one read before the first attempt and
// its flush at exit each wait at most this long (issue 10: "bounded to about 100 ms").
const fleetTimeout = 100 * time.Millisecond

// maxFleetKey is the longest --fleet-key: fleet.Config.Name's limit.
const maxFleetKey = 200

// gateFlags are the circuit breaker, retry budget and fleet flags of http and run.
type gateFlags struct {
	breaker, budget    string
	fleetURL, fleetKey string
	fs                 *pflag.FlagSet
	// rate: the command paces its requests with a rate gate per destination (http), which
	// --fleet shares too.
	rate bool
}

// Keys of --breaker's and --budget's settings, in the order the usage gives them.
var (
	breakerKeys = []string{"failures", "open-timeout", "failure-rate", "min-calls", "window"}
	budgetKeys  = []string{"ratio", "min-retries-per-second", "window"}
)

func (f *gateFlags) register(fs *pflag.FlagSet) {
	f.fs = fs
	fs.StringVar(&f.breaker, "breaker", "", "a circuit breaker: on (the defaults), or `SETTINGS` among\n"+
		"failures=N (in a row, default 3), open-timeout=DURATION (default 30s),\n"+
		"and with --fleet failure-rate=R (of the fleet's calls, default 0.5),\n"+
		"min-calls=N (default 20), window=DURATION (default 1m, for sparse processes), comma-separated")
	fs.StringVar(&f.budget, "budget", "", "a ratio retry budget: on (the defaults), or `SETTINGS` among ratio=R\n"+
		"(of requests, default 0.1), min-retries-per-second=R (default 1),\nwindow=DURATION (default 10s), comma-separated; "+
		"off for no budget at all; without\nthe flag, the default budget (20 retries per host, or the retries\n--attempts allows when more, one back per success)")
	shared := "the breaker and budget"
	if f.rate {
		shared = "the breaker, budget and rate gate"
	}
	fs.StringVar(&f.fleetURL, "fleet", "", "share "+shared+" with every process using the same\n"+
		"--fleet-key through the Redis at `URL`: redis://[user:password@]HOST:PORT/DB\n"+
		"or rediss:// (--breaker on unless --breaker or --budget is given); while it is\n"+
		"out of reach, with this machine's processes through a file in the user's cache")
	fs.StringVar(&f.fleetKey, "fleet-key", "", "`NAME` of what the fleet shares (a service, a job); needed with --fleet")
}

// gates is what the flags set up: the policy's breaker and budget, the rate gates shared
// by the fleet (nil without --fleet, or for a command without rate gates), and how to let go
// of them.
type gates struct {
	rateGates retryhttp.RateGateGroup
	flushes   []func() error // the fleet objects' Close: a last exchange each
	client    func() error   // closes the Redis client, after the flushes
}

// close flushes the fleet's counts, all at once (each bounded by fleetTimeout, and by
// machineTimeout more when Redis is out of reach), stops the syncers, and closes the Redis
// client.
func (g *gates) close() {
	var wg sync.WaitGroup
	for _, flush := range g.flushes {
		wg.Go(func() { _ = flush() }) // a flush that fails is the fleet's loss only, as an unreachable Redis
	}
	wg.Wait()
	if g.client != nil {
		_ = g.client()
	}
}

// setup sets p.Breaker and p.Budget from the flags. key names the destination (for http, the
// URL's scheme, host and port). With --fleet it also makes the fleet's rate gates (when the
// command has rate gates), and reads the fleet's view once, bounded by fleetTimeout, before
// returning. A Redis out of reach gives way to the machine's file (fallbackStore); one that
// cannot be used is said once on stderr. Errors are usage errors naming the flag.
func (f *gateFlags) setup(ctx context.Context, p *retry.Policy, key string, stderr io.Writer) (*gates, error) {
	for _, name := range []string{"breaker", "budget"} {
		if flag := f.fs.Lookup(name); flag != nil && flag.Changed && flag.Value.String() == "" {
			return nil, fmt.Errorf("--%s is empty: want on, or KEY=VALUE,... (leave the flag out for %s)", name,
				map[string]string{"breaker": "none", "budget": "the default budget, or give off for none"}[name])
		}
	}
	bcfg, bOn, err := parseBreaker(f.breaker)
	if err != nil {
		return nil, err
	}
	budgetOff := f.budget == "off"
	if budgetOff {
		p.Budget = retry.NoBudget
	}
	rcfg, rOn, err := parseBudget(map[bool]string{true: "", false: f.budget}[budgetOff])
	if err != nil {
		return nil, err
	}
	if f.fs.Changed("fleet-key") && f.fleetURL == "" {
		return nil, fmt.Errorf("--fleet-key %q needs --fleet URL", f.fleetKey)
	}
	g := &gates{}
	if f.fleetURL == "" {
		if bcfg.OpenRule != (fleet.OpenRule{}) {
			return nil, fmt.Errorf("--breaker %q: failure-rate, min-calls and window are the fleet's rule: they need --fleet", f.breaker)
		}
		if bOn {
			b, err := breaker.New(bcfg.Breaker)
			if err != nil {
				return nil, fmt.Errorf("--breaker %q: %w", f.breaker, err)
			}
			p.Breaker = b
		}
		if rOn {
			b, err := budget.NewRatio(rcfg.Budget)
			if err != nil {
				return nil, fmt.Errorf("--budget %q: %w", f.budget, err)
			}
			p.Budget = b
		}
		return g, nil
	}
	shown, err := redactRedisURL(f.fleetURL)
	if err != nil {
		return nil, err
	}
	if f.fleetKey == "" {
		return nil, fmt.Errorf("--fleet %s needs --fleet-key NAME: the processes sharing a breaker and budget use the same NAME", shown)
	}
	if len(f.fleetKey) > maxFleetKey {
		return nil, fmt.Errorf("--fleet-key %q is %d bytes: want 1 to %d", f.fleetKey, len(f.fleetKey), maxFleetKey)
	}
	redisfleet.SetLogger(slog.New(slog.DiscardHandler)) // the one line onStale writes says it all
	client, err := redisfleet.NewClient(f.fleetURL)
	if err != nil {
		return nil, fmt.Errorf("--fleet %s: %w", shown, err)
	}
	g.client = client.Close
	var staleOnce, fallbackOnce sync.Once
	onStale := func(stale bool, err error) {
		if stale {
			staleOnce.Do(func() {
				fmt.Fprintf(stderr, "retry: --fleet %s cannot be used (%s): deciding locally\n", shown, redactText(err, f.fleetURL))
			})
		}
	}
	store := &fallbackStore{remote: redisfleet.New(client, "")}
	if path, err := machineStorePath(client.Options(), f.fleetKey); err != nil {
		store.noLocal = err
	} else {
		store.local = &fileStore{path: path}
		store.onFallback = func(err error) {
			fallbackOnce.Do(func() {
				fmt.Fprintf(stderr, "retry: --fleet %s cannot be used (%s): sharing with this machine's processes through %s\n",
					shown, redactText(err, f.fleetURL), path)
			})
		}
	}
	fc := fleet.Config{Store: store, Name: f.fleetKey, Timeout: fleetTimeout, OnStale: onStale}
	if bcfg.OpenRule.FleetWindow == 0 {
		bcfg.OpenRule.FleetWindow = time.Minute // processes of a command line are sparse: count a minute of them
	}
	if !bOn && !rOn {
		bOn = true
	}
	var syncs []func(context.Context) error
	if bOn {
		bcfg.Fleet = fc
		group, err := fleet.NewBreakerGroup(bcfg)
		if err != nil {
			g.close()
			return nil, fmt.Errorf("--breaker %q: %w", f.breaker, err)
		}
		p.Breaker = group.Get(key)
		g.flushes = append(g.flushes, group.Close)
		syncs = append(syncs, group.SyncNow)
	}
	if rOn {
		rcfg.Fleet = fc
		b, err := fleet.NewBudget(rcfg)
		if err != nil {
			g.close()
			return nil, fmt.Errorf("--budget %q: %w", f.budget, err)
		}
		p.Budget = b
		g.flushes = append(g.flushes, b.Close)
		syncs = append(syncs, b.SyncNow)
	}
	if f.rate {
		// The processes of a script share the API's limit: each takes the fleet's view of the
		// destination's quotas before its first attempt, and its part of them.
		group, err := fleet.NewRateGateGroup(fleet.RateGateConfig{Fleet: fc})
		if err != nil {
			g.close()
			return nil, fmt.Errorf("--fleet %s: %w", shown, err)
		}
		group.Gate(key)
		g.rateGates = group
		g.flushes = append(g.flushes, group.Close)
		syncs = append(syncs, group.SyncNow)
	}
	var wg sync.WaitGroup
	for _, s := range syncs { // both reads at once: the first attempt waits fleetTimeout at most
		wg.Go(func() {
			c, cancel := context.WithTimeout(ctx, fleetTimeout)
			defer cancel()
			_ = s(c) // an error is said by onStale; decisions are then local
		})
	}
	wg.Wait()
	return g, nil
}

// parseBreaker reads --breaker: "" (off), "on" or settings.
func parseBreaker(s string) (fleet.BreakerConfig, bool, error) {
	var c fleet.BreakerConfig
	settings, on, err := parseSettings("--breaker", s, breakerKeys)
	if err != nil || !on {
		return c, on, err
	}
	for _, kv := range settings {
		var ok bool
		var want string
		switch kv.key {
		case "failures":
			c.Breaker.ConsecutiveFailures, ok = wholeSetting(kv.value)
			want = wantWholeSetting
		case "open-timeout":
			c.Breaker.OpenTimeout, ok = durationSetting(kv.value, time.Nanosecond)
			want = "a positive duration such as 30s"
		case "failure-rate":
			c.OpenRule.FleetFailureRate, ok = numberSetting(kv.value, 1)
			want = "a ratio in (0, 1] such as 0.5"
		case "min-calls":
			c.OpenRule.MinFleetCalls, ok = wholeSetting(kv.value)
			want = wantWholeSetting
		case "window":
			c.OpenRule.FleetWindow, ok = durationSetting(kv.value, fleet.MinFleetWindow)
			want = "a duration of at least 100ms such as 10s"
		}
		if !ok {
			return c, on, fmt.Errorf("--breaker %s=%s: want %s", kv.key, kv.value, want)
		}
	}
	return c, on, nil
}

// parseBudget reads --budget: "" (off), "on" or settings.
func parseBudget(s string) (fleet.BudgetConfig, bool, error) {
	var c fleet.BudgetConfig
	settings, on, err := parseSettings("--budget", s, budgetKeys)
	if err != nil || !on {
		return c, on, err
	}
	for _, kv := range settings {
		var ok bool
		var want string
		switch kv.key {
		case "ratio":
			c.Budget.Ratio, ok = numberSetting(kv.value, 1)
			want = "a ratio in (0, 1] such as 0.1"
		case "min-retries-per-second":
			c.Budget.MinRetriesPerSecond, ok = numberSetting(kv.value, 1e9)
			want = "a positive number of retries a second such as 1"
		case "window":
			c.Budget.Window, ok = durationSetting(kv.value, budget.MinWindow)
			want = fmt.Sprintf("a duration of at least %v such as 10s", budget.MinWindow)
		}
		if !ok {
			return c, on, fmt.Errorf("--budget %s=%s: want %s", kv.key, kv.value, want)
		}
	}
	return c, on, nil
}

// wantWholeSetting says what wholeSetting accepts.
const wantWholeSetting = "a whole number from 1 to 2147483647"

// wholeSetting reads a setting's whole number from 1 to 2^31-1; ok is false otherwise.
func wholeSetting(v string) (n int, ok bool) {
	n, err := strconv.Atoi(v)
	return n, err == nil && n >= 1 && n <= 1<<31-1
}

// numberSetting reads a setting's number in (0, most]; ok is false otherwise (NaN included).
func numberSetting(v string, most float64) (r float64, ok bool) {
	r, err := strconv.ParseFloat(v, 64)
	return r, err == nil && r > 0 && r <= most
}

// durationSetting reads a setting's Go duration of at least least; ok is false otherwise.
func durationSetting(v string, least time.Duration) (d time.Duration, ok bool) {
	d, err := time.ParseDuration(v)
	return d, err == nil && d >= least
}

// setting is one KEY=VALUE of a --breaker or --budget flag.
type setting struct{ key, value string }

// parseSettings reads "on" or "key=value,key=value" with keys among allowed, each at most
// once; the settings come back in the order given, so an error names the first bad one.
func parseSettings(flag, s string, allowed []string) ([]setting, bool, error) {
	switch s {
	case "":
		return nil, false, nil
	case "on":
		return nil, true, nil
	}
	var settings []setting
	for _, part := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(part, "=")
		if !ok || v == "" || !slices.Contains(allowed, k) {
			return nil, false, fmt.Errorf("%s %q: %q is not a setting: want on, or KEY=VALUE,... with KEY among %s",
				flag, s, part, strings.Join(allowed, ", "))
		}
		if slices.ContainsFunc(settings, func(x setting) bool { return x.key == k }) {
			return nil, false, fmt.Errorf("%s %q: %s given twice", flag, s, k)
		}
		settings = append(settings, setting{k, v})
	}
	return settings, true, nil
}

// wantRedisURL says what --fleet takes.
const wantRedisURL = "want redis://[user:password@]HOST:PORT/DB or rediss://..."

// redactRedisURL checks --fleet's URL and returns it as it may be shown: without its
// password. A URL that is not redis:// or rediss:// with a host is a usage error that shows
// the URL as retry http shows a bad URL (user info and query values REDACTED), with what is
// wrong: the scheme, the port, a missing host.
func redactRedisURL(raw string) (string, error) {
	u, err := url.Parse(raw)
	r := splitRawURL(raw)
	switch {
	case err != nil && r.head == "" && !r.hasUser, err == nil && u.Scheme == "":
		return "", fmt.Errorf("--fleet %q is invalid: no scheme; %s", r.text(0), wantRedisURL)
	case err != nil:
		return "", fmt.Errorf("--fleet %q is invalid: %s; %s", r.text(0), r.problem(), wantRedisURL)
	case u.Scheme != "redis" && u.Scheme != "rediss":
		return "", fmt.Errorf("--fleet %q is invalid: scheme %q is not supported; %s", r.text(0), u.Scheme, wantRedisURL)
	case u.Host == "" || u.Opaque != "":
		return "", fmt.Errorf("--fleet %q is invalid: no host; %s", r.text(0), wantRedisURL)
	}
	shown := retryhttp.RedactURL(u)
	if db := strings.TrimPrefix(u.Path, "/"); db != "" {
		if n, err := strconv.Atoi(db); err != nil || n < 0 {
			return "", fmt.Errorf("--fleet %s: the database %q is not a number from 0", shown, db)
		}
	}
	return shown, nil
}

// redactText returns err's text with raw's password replaced by REDACTED where it appears
// in a URL's user information (net/url's errors quote the URL), as typed or escaped. It is
// not looked for elsewhere: neither Redis nor go-redis repeats it, and a search of the
// whole text would mangle words and addresses that happen to equal it (a password
// "connection", or "6379"), and tell it by the holes.
func redactText(err error, raw string) string {
	text := err.Error()
	if u, perr := url.Parse(raw); perr == nil && u.User != nil {
		if password, ok := u.User.Password(); ok && password != "" {
			_, escaped, _ := strings.Cut(u.User.String(), ":")
			for _, p := range []string{password, escaped} {
				text = strings.ReplaceAll(text, ":"+p+"@", ":REDACTED@")
			}
		}
	}
	return text
}
