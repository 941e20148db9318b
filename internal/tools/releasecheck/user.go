package main

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// userEnv runs the go command as a user outside the repository does: GOWORK=off, modules
// of ours only from the file proxy, third-party ones from this machine's module cache or
// its normal proxy.
type userEnv struct {
	dir string   // the fresh module
	bin string   // GOBIN
	env []string // the environment of every command
}

// newUserEnv prepares a fresh module directory under tmp. modCache is the module cache to
// use: the check's own, so that our modules never enter the machine's cache, where a stale
// copy at the same version would hide a change on the next run.
func newUserEnv(tmp, proxyDir, modCache string) (*userEnv, error) {
	u := &userEnv{dir: filepath.Join(tmp, "user"), bin: filepath.Join(tmp, "bin")}
	if err := os.MkdirAll(u.bin, 0o755); err != nil {
		return nil, err
	}
	if err := removeOurs(modCache); err != nil {
		return nil, err
	}
	machineCache, err := goEnv("GOMODCACHE")
	if err != nil {
		return nil, err
	}
	normal, err := goEnv("GOPROXY")
	if err != nil {
		return nil, err
	}
	// Ours first, then the third-party modules this machine already has (no network), then
	// the machine's own proxy (a fresh CI machine downloads them there).
	proxies := []string{"file://" + filepath.ToSlash(proxyDir), "file://" + filepath.ToSlash(filepath.Join(machineCache, "cache", "download"))}
	if normal != "" && normal != "off" {
		proxies = append(proxies, normal)
	}
	set := map[string]string{
		"GOWORK":  "off",
		"GOFLAGS": "-mod=mod -modcacherw",
		"GOPROXY": strings.Join(proxies, ","),
		// No checksum database knows the test version. (Not GOPRIVATE: a user of a public
		// module does not set it, and with it, go get of cmd/retry alone fails once the
		// library is in the module cache, the nested module not found.)
		"GONOSUMDB":   ourPrefix,
		"GOPRIVATE":   "",
		"GONOPROXY":   "",
		"GOMODCACHE":  modCache,
		"GOBIN":       u.bin,
		"GOTOOLCHAIN": "local",
		// The go command indexes a module cache directory once, by its path alone (module
		// cache contents never change). The check rewrites ours at the same version on
		// every run, so that index would describe the previous run's files.
		"GODEBUG": strings.TrimPrefix(os.Getenv("GODEBUG")+",goindex=0", ","),
	}
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if _, ours := set[k]; !ours {
			u.env = append(u.env, kv)
		}
	}
	for k, v := range set {
		u.env = append(u.env, k+"="+v)
	}
	return u.fresh(u.dir)
}

// fresh returns u working in a new module in dir, which it creates.
func (u *userEnv) fresh(dir string) (*userEnv, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	v := *u
	v.dir = dir
	_, err := v.run("go", "mod", "init", "example.com/releasecheck")
	return &v, err
}

// ourPrefix is the module path prefix of this repository's modules, for GONOSUMDB.
const ourPrefix = "github.com/retrykit"

// run runs a command in the fresh module and returns its standard output, or an error that
// shows the command and the end of what it printed.
func (u *userEnv) run(name string, args ...string) (string, error) {
	cmd := exec.Command(name, args...)
	cmd.Dir = u.dir
	cmd.Env = u.env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("%s %s: %v\n%s", filepath.Base(name), strings.Join(args, " "), err, tail(stderr.String()+stdout.String(), 20))
	}
	return stdout.String(), nil
}

// tail returns the last n lines of s, indented.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = append([]string{"..."}, lines[len(lines)-n:]...)
	}
	return "    " + strings.Join(lines, "\n    ")
}

// userPackage is a package of ours as the fresh module sees it.
type userPackage struct {
	ImportPath, Name, Module string
}

// packages lists the packages of ours in the fresh module's build list.
func (u *userEnv) packages() ([]userPackage, error) {
	out, err := u.run("go", "list", "-e", "-f", "{{.ImportPath}} {{.Name}} {{with .Module}}{{.Path}}{{end}}", ourPrefix+"/...")
	if err != nil {
		return nil, err
	}
	var pkgs []userPackage
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		f := strings.Fields(line)
		if len(f) == 3 {
			pkgs = append(pkgs, userPackage{f[0], f[1], f[2]})
		}
	}
	return pkgs, nil
}

// importable reports whether a program outside the repository can import p.
func (p userPackage) importable() bool {
	return p.Name != "main" && !slices.Contains(strings.Split(p.ImportPath, "/"), "internal")
}

// buildImporting writes a program that imports every package in paths and builds it.
func (u *userEnv) buildImporting(paths []string) error {
	var src strings.Builder
	src.WriteString("// Command releasecheck imports every published package of github.com/retrykit/retry.\npackage main\n\nimport (\n")
	for _, p := range paths {
		fmt.Fprintf(&src, "\t_ %q\n", p)
	}
	src.WriteString(")\n\nfunc main() {}\n")
	if err := os.WriteFile(filepath.Join(u.dir, "main.go"), []byte(src.String()), 0o644); err != nil {
		return err
	}
	_, err := u.run("go", "build", "-o", os.DevNull, ".")
	return err
}

// thirdParty returns the modules other than the standard library and root that the
// packages in paths import, directly or not.
func (u *userEnv) thirdParty(root string, paths []string) ([]string, error) {
	out, err := u.run("go", append([]string{"list", "-deps", "-f", "{{if not .Standard}}{{with .Module}}{{.Path}}{{end}}{{end}}"}, paths...)...)
	if err != nil {
		return nil, err
	}
	var others []string
	for _, m := range strings.Fields(out) {
		if m != root && !slices.Contains(others, m) {
			others = append(others, m)
		}
	}
	return others, nil
}

// goEnv returns the value of a go env variable in the caller's environment.
func goEnv(name string) (string, error) {
	out, err := exec.Command("go", "env", name).Output()
	if err != nil {
		return "", fmt.Errorf("go env %s: %v", name, err)
	}
	return strings.TrimSpace(string(out)), nil
}

// removeOurs deletes every version of our modules from the module cache modCache (files
// there are read-only unless written with -modcacherw, so it makes them writable first).
func removeOurs(modCache string) error {
	for _, d := range []string{filepath.Join(modCache, ourPrefix), filepath.Join(modCache, "cache", "download", ourPrefix)} {
		_ = filepath.WalkDir(d, func(p string, e fs.DirEntry, err error) error {
			if err == nil && e.IsDir() {
				_ = os.Chmod(p, 0o755)
			}
			return nil
		})
		if err := os.RemoveAll(d); err != nil {
			return err
		}
	}
	return nil
}
