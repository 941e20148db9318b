package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// withoutTestFiles honours -test=false when go vet runs the command on one package: go vet
// always analyzes a package with its test files (and its external test package), and
// passes -test on to its tool without reading it. With -test=false the package's
// configuration file (the last argument) is written again without its _test.go files, so
// that the findings and fixes are those of the package alone, as when loading it without
// tests; skip is true for an external test package, which has nothing left. Otherwise, and for every other command line, args is returned
// as it is.
func withoutTestFiles(args []string) (_ []string, skip bool, _ error) {
	if len(args) < 2 || !strings.HasSuffix(args[len(args)-1], ".cfg") || testsIncluded(args[1:len(args)-1]) {
		return args, false, nil
	}
	path := args[len(args)-1]
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, false, err
	}
	var cfg map[string]json.RawMessage // every field go vet sets, kept as it is
	var unit struct{ GoFiles []string }
	if err := json.Unmarshal(data, &cfg); err != nil {
		return nil, false, fmt.Errorf("%s: %v", path, err)
	}
	if err := json.Unmarshal(data, &unit); err != nil {
		return nil, false, fmt.Errorf("%s: %v", path, err)
	}
	var files []string
	for _, f := range unit.GoFiles {
		if !strings.HasSuffix(f, "_test.go") {
			files = append(files, f)
		}
	}
	if len(files) == len(unit.GoFiles) {
		return args, false, nil
	}
	if len(files) == 0 {
		return nil, true, nil
	}
	cfg["GoFiles"], _ = json.Marshal(files)
	data, err = json.Marshal(cfg)
	if err != nil {
		return nil, false, err
	}
	path = strings.TrimSuffix(path, ".cfg") + ".notest.cfg" // in go vet's work directory of this package
	if err := os.WriteFile(path, data, 0o644); err != nil {
		return nil, false, err
	}
	return append(args[:len(args)-1:len(args)-1], path), false, nil
}

// testsIncluded reads the -test flag from go vet's flags for its tool (it passes them as
// -NAME=VALUE): true unless -test=false.
func testsIncluded(flags []string) bool {
	included := true
	for _, f := range flags {
		name, value, hasValue := strings.Cut(strings.TrimLeft(f, "-"), "=")
		if name != "test" {
			continue
		}
		included = true
		if hasValue {
			included, _ = strconv.ParseBool(value) // a bad value is the flag package's to report
		}
	}
	return included
}
