// Command survey re-runs retrycheck's precision survey (precision/README.md): for every
// module@version in precision/modules.txt (or those matching -run) it downloads the
// module from the module proxy (go mod download), copies it to a work directory (without
// the replace directives that point to a directory absent from a download), runs
// retrycheck -json over all its packages, tests included (standalone; -vet runs it as go
// vet's tool), and writes every finding to precision/findings.tsv, keeping the label and
// reason already given to a finding at the same module, file, line and check. A new
// finding gets the label "?" until someone reads the code. Each module surveyed gets the
// commit of retrycheck it was surveyed at in modules.txt; the findings and commits of
// modules not run are kept. It then prints the table of findings, true and false per
// module.
//
// The commit is that of the checkout the tool binary was built from: the survey refuses
// to run when a Go file of the module (outside the survey itself) differs from it.
//
// It needs the network (the module proxy) and takes minutes; CI does not run it.
//
//	go build -o /tmp/retrycheck ./cmd/retrycheck
//	go run ./internal/survey -tool /tmp/retrycheck [-work DIR] [-vet] [-run REGEXP] [-table]
//
// -table only prints the table of the labelled file, without running anything.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
)

func main() {
	tool := flag.String("tool", "", "the retrycheck binary (required unless -table)")
	work := flag.String("work", filepath.Join(os.TempDir(), "retrycheck-survey"), "where the modules are copied")
	dir := flag.String("dir", "precision", "the directory of modules.txt and findings.tsv")
	tableOnly := flag.Bool("table", false, "print the table of findings.tsv and exit")
	vet := flag.Bool("vet", false, "run retrycheck as go vet's tool instead of standalone")
	run := flag.String("run", "", "survey only the modules matching this regular expression (default all)")
	flag.Parse()
	findingsPath := filepath.Join(*dir, "findings.tsv")
	old, err := readFindings(findingsPath)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		fail(err)
	}
	if *tableOnly {
		printTable(os.Stdout, old)
		return
	}
	if *tool == "" {
		fail(errors.New("-tool is required: build retrycheck first (go build -o /tmp/retrycheck ./cmd/retrycheck)"))
	}
	selected, err := regexp.Compile(*run)
	if err != nil {
		fail(err)
	}
	commit, err := checkoutCommit()
	if err != nil {
		fail(err)
	}
	modulesPath := filepath.Join(*dir, "modules.txt")
	modules, err := readModules(modulesPath)
	if err != nil {
		fail(err)
	}
	labels := map[string]finding{}
	for _, f := range old {
		labels[f.key()] = f
	}
	all := old
	for i, m := range modules {
		if m.path == "" || !selected.MatchString(m.path) {
			continue // a comment, or not selected
		}
		found, err := survey(m.path, *tool, *work, *vet)
		if err != nil {
			fmt.Fprintf(os.Stderr, "survey: %s: %v\n", m.path, err)
		}
		all = slices.DeleteFunc(all, func(f finding) bool { return f.Module == m.path })
		for _, f := range found {
			if l, ok := labels[f.key()]; ok {
				f.Label, f.Reason = l.Label, l.Reason
			} else {
				f.Label = "?"
			}
			all = append(all, f)
		}
		if err == nil || len(found) > 0 { // surveyed, if only in part
			modules[i].commit = commit
		}
		fmt.Fprintf(os.Stderr, "survey: %s: %d findings\n", m.path, len(found))
		// After each module, to label as it goes.
		if err := writeFindings(findingsPath, all); err != nil {
			fail(err)
		}
		if err := writeModules(modulesPath, modules); err != nil {
			fail(err)
		}
	}
	printTable(os.Stdout, all)
}

// checkoutCommit returns the commit of the checkout, and an error when a Go file of the
// module other than the survey's own differs from it (the findings would not be that
// commit's).
func checkoutCommit() (string, error) {
	out, err := exec.Command("git", "status", "--porcelain", "--", ".", ":!internal/survey").Output()
	if err != nil {
		return "", fmt.Errorf("git status: %v", err)
	}
	for _, line := range strings.Split(string(out), "\n") {
		if strings.HasSuffix(line, ".go") || strings.HasSuffix(line, "go.mod") || strings.HasSuffix(line, "go.sum") {
			return "", fmt.Errorf("the checkout has changes to commit first (%s): the survey records the commit of retrycheck", strings.TrimSpace(line))
		}
	}
	out, err = exec.Command("git", "rev-parse", "--short=12", "HEAD").Output()
	if err != nil {
		return "", fmt.Errorf("git rev-parse: %v", err)
	}
	return strings.TrimSpace(string(out)), nil
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "survey:", err)
	os.Exit(1)
}

// finding is one line of findings.tsv.
type finding struct {
	Module, Position, Check, Label, Reason, Message string
}

func (f finding) key() string { return f.Module + "\t" + f.Position + "\t" + f.Check }

const header = "module\tposition\tcheck\tlabel\treason\tmessage"

// module is one line of modules.txt: "module@version", then after a tab the commit of
// retrycheck it was last surveyed at (none before its first survey). Other lines (#
// comments, blank lines) are kept as they are.
type module struct {
	path, commit string
	line         string // a line that is not a module
}

// readModules reads modules.txt.
func readModules(path string) ([]module, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []module
	for _, line := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		text, _, _ := strings.Cut(line, "#")
		fields := strings.Fields(text)
		switch len(fields) {
		case 0:
			out = append(out, module{line: line})
		case 1:
			out = append(out, module{path: fields[0]})
		default:
			out = append(out, module{path: fields[0], commit: fields[1]})
		}
	}
	return out, nil
}

func writeModules(path string, modules []module) error {
	var b bytes.Buffer
	for _, m := range modules {
		switch {
		case m.path == "":
			b.WriteString(m.line)
		case m.commit == "":
			b.WriteString(m.path)
		default:
			b.WriteString(m.path + "\t" + m.commit)
		}
		b.WriteString("\n")
	}
	return os.WriteFile(path, b.Bytes(), 0o644)
}

func readFindings(path string) ([]finding, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []finding
	s := bufio.NewScanner(f)
	s.Buffer(nil, 1<<20)
	for s.Scan() {
		if s.Text() == header || s.Text() == "" {
			continue
		}
		p := strings.Split(s.Text(), "\t")
		if len(p) != 6 {
			return nil, fmt.Errorf("%s: want 6 tab-separated fields, got %d: %q", path, len(p), s.Text())
		}
		out = append(out, finding{p[0], p[1], p[2], p[3], p[4], p[5]})
	}
	return out, s.Err()
}

func writeFindings(path string, all []finding) error {
	var b bytes.Buffer
	b.WriteString(header + "\n")
	for _, f := range all {
		fmt.Fprintf(&b, "%s\t%s\t%s\t%s\t%s\t%s\n", f.Module, f.Position, f.Check, f.Label, f.Reason, f.Message)
	}
	return os.WriteFile(path, b.Bytes(), 0o644)
}

// survey runs retrycheck over one module and returns its findings.
func survey(module, tool, work string, vet bool) ([]finding, error) {
	out, err := exec.Command("go", "mod", "download", "-json", module).Output()
	if err != nil {
		return nil, fmt.Errorf("go mod download: %v", err)
	}
	var dl struct{ Dir, Error string }
	if err := json.Unmarshal(out, &dl); err != nil || dl.Error != "" {
		return nil, fmt.Errorf("go mod download: %v %s", err, dl.Error)
	}
	if err := os.MkdirAll(work, 0o755); err != nil {
		return nil, err
	}
	dst := filepath.Join(work, strings.NewReplacer("/", "_", "@", "_").Replace(module))
	if _, err := os.Stat(dst); err != nil {
		if err := exec.Command("cp", "-r", dl.Dir, dst).Run(); err != nil {
			return nil, fmt.Errorf("copy: %v", err)
		}
		if err := exec.Command("chmod", "-R", "u+w", dst).Run(); err != nil {
			return nil, err
		}
		if err := dropLocalReplaces(dst); err != nil {
			return nil, err
		}
	}
	cmd := exec.Command(tool, "-json", "./...") // standalone: type-checks from source, no compiling
	if vet {
		cmd = exec.Command("go", "vet", "-vettool="+tool, "-json", "./...")
	}
	cmd.Dir = dst
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod", "GOTOOLCHAIN=local")
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stderr, &stderr // the JSON goes to one or the other, by Go version
	runErr := cmd.Run()
	found, err := parseVetJSON(module, dst, stderr.Bytes())
	if err == nil && runErr != nil && len(found) == 0 {
		err = fmt.Errorf("go vet: %v\n%s", runErr, tail(stderr.String()))
	}
	return found, err
}

// dropLocalReplaces removes the replace directives of dir's go.mod that point to a
// directory: in a module downloaded alone (etcd's, hydra's) the directory is not there, so
// the required version, which the module proxy serves, is used instead.
func dropLocalReplaces(dir string) error {
	out, err := exec.Command("go", "mod", "edit", "-json", filepath.Join(dir, "go.mod")).Output()
	if err != nil {
		return fmt.Errorf("go mod edit -json: %v", err)
	}
	var mod struct {
		Replace []struct {
			Old, New struct{ Path, Version string }
		}
	}
	if err := json.Unmarshal(out, &mod); err != nil {
		return fmt.Errorf("go mod edit -json: %v", err)
	}
	args := []string{"mod", "edit"}
	for _, r := range mod.Replace {
		if r.New.Version != "" { // a module, not a directory
			continue
		}
		old := r.Old.Path
		if r.Old.Version != "" {
			old += "@" + r.Old.Version
		}
		args = append(args, "-dropreplace="+old)
	}
	if len(args) == 2 {
		return nil
	}
	cmd := exec.Command("go", append(args, "go.mod")...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go mod edit: %v %s", err, out)
	}
	return nil
}

func tail(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > 8 {
		lines = lines[len(lines)-8:]
	}
	return strings.Join(lines, "\n")
}

// parseVetJSON reads go vet -json's output: for each package a "# path" line and an
// object {"path": {"analyzer": [{"posn": ..., "message": ...}]}}.
func parseVetJSON(module, root string, out []byte) ([]finding, error) {
	// Each package's object starts with a line "{" and ends with a line "}"; other lines
	// (# headers, go: downloading, errors of packages that do not type-check) are skipped.
	var objects []string
	var cur strings.Builder
	in := false
	for _, line := range strings.Split(string(out), "\n") {
		switch {
		case !in && line == "{":
			in = true
			cur.Reset()
			cur.WriteString(line + "\n")
		case in:
			cur.WriteString(line + "\n")
			if line == "}" {
				in = false
				objects = append(objects, cur.String())
			}
		}
	}
	seen := map[string]bool{}
	var found []finding
	for _, text := range objects {
		var obj map[string]map[string]json.RawMessage
		if err := json.Unmarshal([]byte(text), &obj); err != nil {
			continue
		}
		for _, analyzers := range obj {
			for name, raw := range analyzers {
				var diags []struct{ Posn, Message string }
				if json.Unmarshal(raw, &diags) != nil {
					continue
				}
				for _, d := range diags {
					pos := d.Posn
					if rel, err := filepath.Rel(root, pos); err == nil {
						pos = rel
					}
					if i := strings.LastIndex(pos, ":"); i > 0 {
						pos = pos[:i] // drop the column
					}
					f := finding{Module: module, Position: pos, Check: name, Message: d.Message}
					if !seen[f.key()] { // a file in a package and its test variant
						seen[f.key()] = true
						found = append(found, f)
					}
				}
			}
		}
	}
	sort.Slice(found, func(i, j int) bool { return found[i].key() < found[j].key() })
	return found, nil
}

// printTable prints findings, true and false per module, and the totals.
func printTable(w io.Writer, all []finding) {
	type row struct{ n, t, f, u int }
	rows := map[string]*row{}
	var order []string
	var total row
	for _, f := range all {
		r := rows[f.Module]
		if r == nil {
			r = &row{}
			rows[f.Module] = r
			order = append(order, f.Module)
		}
		r.n++
		total.n++
		switch f.Label {
		case "true":
			r.t++
			total.t++
		case "false":
			r.f++
			total.f++
		default:
			r.u++
			total.u++
		}
	}
	fmt.Fprintln(w, "| module | findings | true | false | unlabelled |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|")
	for _, m := range order {
		r := rows[m]
		fmt.Fprintf(w, "| %s | %d | %d | %d | %d |\n", m, r.n, r.t, r.f, r.u)
	}
	precision := 0.0
	if total.t+total.f > 0 {
		precision = 100 * float64(total.t) / float64(total.t+total.f)
	}
	fmt.Fprintf(w, "| all %d modules | %d | %d | %d | %d |\n\nprecision: %.1f%% (%d of %d labelled findings true)\n",
		len(order), total.n, total.t, total.f, total.u, precision, total.t, total.t+total.f)
}
