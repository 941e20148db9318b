package retrygrpc_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	"google.golang.org/protobuf/encoding/protojson"
	"gopkg.in/yaml.v3"
)

// Envoy's own protos (go-control-plane, which grpc-go's xDS support brings) read every
// route retry_policy retry plan --format envoy writes, unknown fields refused, and its
// validation rules (protoc-gen-validate) pass.
func TestExportedEnvoyConfigsParse(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("..", "cmd", "retry", "testdata", "plan-export", "envoy-*.golden"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no Envoy golden files: %v", err)
	}
	for _, path := range paths {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		_, rest, _ := strings.Cut(string(b), "\n") // the command line
		config, _, _ := strings.Cut(rest, "--- stderr\n")
		var v any
		if err := yaml.Unmarshal([]byte(config), &v); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		js, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		route := new(routev3.RouteAction)
		if err := protojson.Unmarshal(js, route); err != nil {
			t.Errorf("%s: Envoy's RouteAction does not read it: %v", path, err)
			continue
		}
		// The export is the retry part of a route: give it the cluster every route names.
		route.ClusterSpecifier = &routev3.RouteAction_Cluster{Cluster: "backend"}
		if err := route.Validate(); err != nil {
			t.Errorf("%s: Envoy's validation: %v", path, err)
		}
		rp := route.GetRetryPolicy()
		if rp.GetNumRetries().GetValue() == 0 || rp.GetRetryBackOff().GetBaseInterval() == nil ||
			rp.GetRateLimitedRetryBackOff().GetResetHeaders()[0].GetName() != "Retry-After" {
			t.Errorf("%s: retry policy %v", path, rp)
		}
	}
}
