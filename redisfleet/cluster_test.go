package redisfleet

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/breaker"
	"github.com/retrykit/retry/budget"
	"github.com/retrykit/retry/fleet"
	"github.com/retrykit/retry/redisfleet/redistest"
)

// The script declares every key it touches (issue 24 item 6): MONITOR shows each command the
// script runs, COMMAND GETKEYS names its keys, and each is among the script call's KEYS, for
// a breaker group's exchange (counts, an OpOpen, the opened keys listed) and a budget
// group's (counts, grants, an ended grant). Before the fix the script declared one key,
// {svc:breaker}:r, and touched 14 more it built from ARGV and TIME.
func TestScriptDeclaresEveryKey(t *testing.T) {
	s := redistest.Start(t)
	c := fleetClient(t, s)
	store := New(c, "")
	ctx := context.Background()
	stop := monitor(t, s.Addr())
	for i, x := range []*fleet.Exchange{
		{Group: "svc:breaker", Replica: "a", Window: time.Second, OpenTimeout: time.Second, TrialTimeout: time.Second,
			Keys: []fleet.Key{{Name: "https://a:443", Counts: [2]int64{3, 1}, Unsent: [2]int64{3, 1}, Op: fleet.OpOpen}, {Name: "https://b:443"}}},
		{Group: "svc:breaker", Replica: "b", Window: time.Second, OpenTimeout: time.Second, TrialTimeout: time.Second},
		{Group: "svc:budget", Replica: "a", Window: time.Second, Budget: &fleet.BudgetRule{Ratio: 0.1, Floor: 10, GrantFor: time.Millisecond},
			Keys: []fleet.Key{{Name: "", Counts: [2]int64{3, 1}, Unsent: [2]int64{3, 1}}}},
		{Group: "svc:budget", Replica: "b", Window: time.Second, Budget: &fleet.BudgetRule{Ratio: 0.1, Floor: 10, GrantFor: time.Second},
			Keys: []fleet.Key{{Name: "", Counts: [2]int64{3, 1}, Unsent: [2]int64{3, 1}}}},
	} {
		if i == 3 {
			time.Sleep(5 * time.Millisecond) // a's grant ends: b's exchange removes it
		}
		if err := store.Exchange(ctx, x); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(100 * time.Millisecond)
	calls := stop()
	scripts, touched, undeclared := 0, 0, map[string]bool{}
	var declared map[string]bool
	for _, args := range calls {
		switch strings.ToLower(args.command[0]) {
		case "evalsha", "eval":
			scripts++
			n, _ := strconv.Atoi(args.command[2])
			declared = map[string]bool{}
			for _, k := range args.command[3 : 3+n] {
				declared[k] = true
			}
			continue
		}
		if !args.lua {
			continue
		}
		keys, err := c.Do(ctx, append([]any{"COMMAND", "GETKEYS"}, anys(args.command)...)...).StringSlice()
		if err != nil { // a command with no key (TIME)
			continue
		}
		for _, k := range keys {
			touched++
			if !declared[k] {
				undeclared[k] = true
			}
		}
	}
	t.Logf("%d script calls touched keys %d times; not declared: %d %v", scripts, touched, len(undeclared), undeclared)
	if scripts != 5 || touched == 0 { // four exchanges, the first with EVALSHA then EVAL
		t.Fatalf("MONITOR saw %d script calls touching keys %d times, want 5 and some", scripts, touched)
	}
	if len(undeclared) != 0 {
		t.Errorf("the script touched keys it did not declare: %v", undeclared)
	}
}

// monitorLine is one command MONITOR showed: its words, and whether a script ran it.
type monitorLine struct {
	command []string
	lua     bool
}

// monitor starts MONITOR on a connection of its own; stop ends it and returns the commands
// seen.
func monitor(t *testing.T, addr string) (stop func() []monitorLine) {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(conn, "MONITOR\r\n")
	r := bufio.NewReader(conn)
	if l, err := r.ReadString('\n'); err != nil || !strings.HasPrefix(l, "+OK") {
		t.Fatalf("MONITOR: %q %v", l, err)
	}
	lines := make(chan string, 10_000)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			l, err := r.ReadString('\n')
			if err != nil {
				return
			}
			select {
			case lines <- strings.TrimRight(l, "\r\n"):
			default: // more than the test makes: dropped
			}
		}
	}()
	return func() []monitorLine {
		conn.Close()
		<-done
		close(lines)
		var out []monitorLine
		for l := range lines {
			if words := monitorWords(l); len(words) > 0 {
				out = append(out, monitorLine{words, strings.Contains(l, " lua] ")})
			}
		}
		return out
	}
}

// monitorWords returns the quoted words of a MONITOR line
// (+1700000000.123456 [0 127.0.0.1:5000] "HSET" "key" "\x01..."), unquoted.
func monitorWords(l string) []string {
	_, rest, ok := strings.Cut(l, "] ")
	if !ok {
		return nil
	}
	var words []string
	for rest = strings.TrimSpace(rest); rest != ""; rest = strings.TrimSpace(rest) {
		end := 1
		for ; end < len(rest) && rest[end] != '"'; end++ {
			if rest[end] == '\\' {
				end++
			}
		}
		w, err := strconv.Unquote(rest[:min(end+1, len(rest))])
		if err != nil {
			return nil
		}
		words = append(words, w)
		rest = rest[min(end+1, len(rest)):]
	}
	return words
}

func anys(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// Package fleet's breakers and budgets work on a real Redis Cluster of three masters that
// the test starts itself (issue 24 item 6): three fleets whose groups' hash tags fall on the
// three nodes, through a cluster client that does not follow redirects (a script call routed
// by its declared keys to the wrong node would fail with MOVED). Each group's keys all live
// on the node that serves its tag's slot; the fleet's rule opens a destination for every
// replica, and budgets are granted.
func TestFleetOnRedisCluster(t *testing.T) {
	cl := redistest.StartCluster(t)
	client := cl.Client(t)
	store := New(client, "")
	// Three fleet names whose breaker tags fall on three different nodes.
	names := map[*redistest.Server]string{}
	for i := 0; len(names) < 3 && i < 1000; i++ {
		name := "svc" + strconv.Itoa(i)
		if n := cl.NodeOf("{" + name + ":breaker}"); names[n] == "" {
			names[n] = name
		}
	}
	if len(names) != 3 {
		t.Fatalf("no three names on three nodes: %v", names)
	}
	const key = "https://down.example:443"
	for node, name := range names {
		cfg := fleet.BreakerConfig{Fleet: fleet.Config{Name: name, Interval: 50 * time.Millisecond},
			Breaker: breaker.Config{ConsecutiveFailures: 1000, OpenTimeout: time.Minute}, OpenRule: fleet.OpenRule{MinFleetCalls: 20}}
		gs := groups(t, 3, store, cfg)
		for _, g := range gs {
			for range 10 {
				call(g.Breaker(key), retry.ResultFailure)
			}
		}
		waitFor(t, name+" OPEN on every replica", func() bool {
			for _, g := range gs {
				if g.Get(key).State() != breaker.StateOpen {
					return false
				}
			}
			return true
		})
		b, err := fleet.NewBudget(fleet.BudgetConfig{Fleet: fleet.Config{Store: store, Name: name, Interval: time.Hour},
			Budget: budget.RatioConfig{MinRetriesPerSecond: 2}})
		if err != nil {
			t.Fatal(err)
		}
		if err := b.SyncNow(context.Background()); err != nil {
			t.Fatal(err)
		}
		if b.Tokens() != 20 {
			t.Errorf("%s: budget grant %d, want the floor's 20", name, b.Tokens())
		}
		b.Close()
		for _, tag := range []string{"{" + name + ":breaker}", "{" + name + ":budget}"} {
			home := cl.NodeOf(tag)
			if tag == "{"+name+":breaker}" && home != node {
				t.Fatalf("%s: on %s, want %s", tag, home.Addr(), node.Addr())
			}
			for _, n := range cl.Nodes {
				keys := nodeKeys(t, n, tag+"*")
				if n == home && len(keys) == 0 || n != home && len(keys) != 0 {
					t.Errorf("%s: node %s holds keys %v; want them all on %s", tag, n.Addr(), keys, home.Addr())
				}
			}
		}
	}
}

// nodeKeys returns the keys of node n matching pattern.
func nodeKeys(t *testing.T, n *redistest.Server, pattern string) []string {
	t.Helper()
	c := redis.NewClient(&redis.Options{Addr: n.Addr(), MaxRetries: -1, DisableIdentity: true})
	defer c.Close()
	keys, err := c.Keys(context.Background(), pattern).Result()
	if err != nil {
		t.Fatal(err)
	}
	return keys
}
