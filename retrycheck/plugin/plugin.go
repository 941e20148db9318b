// Package plugin registers retrycheck as a golangci-lint module plugin (golangci-lint v2,
// "golangci-lint custom"). Add it to .custom-gcl.yml:
//
//	version: v2.15.0
//	plugins:
//	  - module: github.com/retrykit/retry/retrycheck
//	    import: github.com/retrykit/retry/retrycheck/plugin
//	    version: v0.2.0
//
// and enable it in .golangci.yml:
//
//	linters:
//	  enable:
//	    - retrycheck
//	  settings:
//	    custom:
//	      retrycheck:
//	        type: module
//	        settings:
//	          disable: [retrysleep]   # optional: checks to leave out, by name
//
// The settings are optional; an unknown setting or check name is an error.
package plugin

import (
	"fmt"
	"slices"

	"github.com/golangci/plugin-module-register/register"
	"github.com/retrykit/retry/retrycheck"
	"golang.org/x/tools/go/analysis"
)

func init() {
	register.Plugin("retrycheck", New)
}

// Settings are the plugin's settings in .golangci.yml.
type Settings struct {
	// Disable names checks to leave out (retrynested, retrywrite, retrybody, retryrewind,
	// retrysleep, retryunbounded, retrycancel, retryctx).
	Disable []string `json:"disable"`
}

// Plugin is the retrycheck linter for golangci-lint.
type Plugin struct {
	settings Settings
}

// New returns the plugin for the settings golangci-lint decoded from its configuration;
// it is what register.Plugin registers. An unknown setting or check name is an error.
func New(settings any) (register.LinterPlugin, error) {
	s, err := register.DecodeSettings[Settings](settings)
	if err != nil {
		return nil, err
	}
	for _, name := range s.Disable {
		if !slices.ContainsFunc(retrycheck.Analyzers, func(a *analysis.Analyzer) bool { return a.Name == name }) {
			return nil, fmt.Errorf("retrycheck: disable names %q, which is not a check (want one of %s)", name, names())
		}
	}
	return &Plugin{settings: s}, nil
}

// BuildAnalyzers returns the checks not disabled.
func (p *Plugin) BuildAnalyzers() ([]*analysis.Analyzer, error) {
	var out []*analysis.Analyzer
	for _, a := range retrycheck.Analyzers {
		if !slices.Contains(p.settings.Disable, a.Name) {
			out = append(out, a)
		}
	}
	return out, nil
}

// GetLoadMode says the checks need type information (register.LoadModeTypesInfo).
func (p *Plugin) GetLoadMode() string { return register.LoadModeTypesInfo }

// names lists the checks' names.
func names() string {
	var s string
	for i, a := range retrycheck.Analyzers {
		if i > 0 {
			s += ", "
		}
		s += a.Name
	}
	return s
}
