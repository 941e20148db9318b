package plugin

import (
	"strings"
	"testing"

	"github.com/golangci/plugin-module-register/register"
	"github.com/retrykit/retry/retrycheck"
)

// golangci-lint finds the plugin by name in register's table and builds its analyzers
// with the settings of .golangci.yml, decoded from YAML into map[string]any.
func TestPluginRegistered(t *testing.T) {
	newPlugin, err := register.GetPlugin("retrycheck")
	if err != nil {
		t.Fatal(err)
	}
	p, err := newPlugin(map[string]any{"disable": []any{"retrysleep"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := p.GetLoadMode(); got != register.LoadModeTypesInfo {
		t.Errorf("load mode %q, want %q", got, register.LoadModeTypesInfo)
	}
	analyzers, err := p.BuildAnalyzers()
	if err != nil {
		t.Fatal(err)
	}
	if len(analyzers) != len(retrycheck.Analyzers)-1 {
		t.Errorf("%d analyzers, want %d (all but retrysleep)", len(analyzers), len(retrycheck.Analyzers)-1)
	}
	for _, a := range analyzers {
		if a.Name == "retrysleep" {
			t.Error("retrysleep was disabled but is built")
		}
	}
}

func TestPluginNoSettings(t *testing.T) {
	p, err := New(nil)
	if err != nil {
		t.Fatal(err)
	}
	analyzers, _ := p.BuildAnalyzers()
	if len(analyzers) != len(retrycheck.Analyzers) {
		t.Errorf("%d analyzers, want all %d", len(analyzers), len(retrycheck.Analyzers))
	}
}

func TestPluginBadSettings(t *testing.T) {
	for _, tc := range []struct {
		settings any
		want     string
	}{
		{map[string]any{"disable": []any{"retrysnooze"}}, `disable names "retrysnooze", which is not a check (want one of retrynested,`},
		{map[string]any{"enable": []any{"retrysleep"}}, `unknown field "enable"`},
	} {
		_, err := New(tc.settings)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("New(%v) = %v, want an error containing %q", tc.settings, err, tc.want)
		}
	}
}
