package redistest

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// Cluster is a Redis Cluster of three masters, no replicas, started by [StartCluster].
type Cluster struct {
	// Nodes are the masters; node i serves the slots from i × 16384 / 3.
	Nodes []*Server
}

// StartCluster starts three redis-servers with cluster-enabled yes on free 127.0.0.1 ports,
// gives each a third of the 16384 slots (CLUSTER ADDSLOTSRANGE), joins them (CLUSTER
// MEET), and waits, for at most 10 s, until every node reports cluster_state:ok. They stop
// at the test's end. Skipped or failed as [Start] when redis-server is missing.
func StartCluster(t testing.TB) *Cluster {
	t.Helper()
	c := &Cluster{}
	for range 3 {
		c.Nodes = append(c.Nodes, start(t, "--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
			"--cluster-node-timeout", "5000"))
	}
	for i, n := range c.Nodes {
		first, last := i*16384/3, (i+1)*16384/3-1
		n.do("CLUSTER", "ADDSLOTSRANGE", first, last)
	}
	for _, n := range c.Nodes[1:] {
		c.Nodes[0].do("CLUSTER", "MEET", "127.0.0.1", n.port)
	}
	for deadline := time.Now().Add(10 * time.Second); !c.ready(); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("Redis Cluster on %v not ready after 10 s", c.Addrs())
		}
	}
	return c
}

// ready reports whether every node says cluster_state:ok and knows the three masters.
func (c *Cluster) ready() bool {
	for _, n := range c.Nodes {
		info, ok := n.do("CLUSTER", "INFO").(string)
		if !ok || !strings.Contains(info, "cluster_state:ok") || !strings.Contains(info, "cluster_known_nodes:3") {
			return false
		}
	}
	return true
}

// Addrs returns the nodes' "127.0.0.1:PORT" addresses.
func (c *Cluster) Addrs() []string {
	addrs := make([]string, len(c.Nodes))
	for i, n := range c.Nodes {
		addrs[i] = n.Addr()
	}
	return addrs
}

// NodeOf returns the node that serves key's slot (CLUSTER KEYSLOT).
func (c *Cluster) NodeOf(key string) *Server {
	c.Nodes[0].t.Helper()
	slot, ok := c.Nodes[0].do("CLUSTER", "KEYSLOT", key).(int64)
	if !ok {
		c.Nodes[0].t.Fatalf("CLUSTER KEYSLOT %q: not a number", key)
	}
	return c.Nodes[int(slot)*3/16384]
}

// Client returns a cluster client of the nodes with go-redis's own retries and redirects off
// (a command sent to the wrong node fails with MOVED), closed at
// the test's end.
func (c *Cluster) Client(t testing.TB) *redis.ClusterClient {
	t.Helper()
	cc := redis.NewClusterClient(&redis.ClusterOptions{Addrs: c.Addrs(), MaxRetries: -1, MaxRedirects: -1, // no redirect: a MOVED reply fails the command
		DisableIdentity: true})
	t.Cleanup(func() { cc.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := cc.ForEachShard(ctx, func(ctx context.Context, n *redis.Client) error { return n.Ping(ctx).Err() }); err != nil {
		t.Fatalf("the Redis Cluster on %v: %v", c.Addrs(), err)
	}
	return cc
}
