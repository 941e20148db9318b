package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/module"
	"golang.org/x/mod/sumdb/dirhash"
	"golang.org/x/mod/zip"
)

// builtModule is one module version written to the file proxy.
type builtModule struct {
	Module  module.Version
	Files   int    // files in its zip
	Size    int64  // bytes of its zip
	ZipHash string // go.sum hash of the zip ("h1:...")
	ModHash string // go.sum hash of its go.mod
}

// buildProxy writes every published module of r at version into dir, laid out as a
// GOPROXY (https://go.dev/ref/mod#goproxy-protocol): <escaped path>/@v/{list, V.info,
// V.mod, V.zip}. Each module's go.mod requires ours at version, and its go.sum holds the
// hashes of the zips of ours it depends on, as they will after the release's step 3
// (RELEASING.md). A zip holds the module's files that git tracks or would track (ignored
// files are left out), read from the working tree.
func buildProxy(r *repo, version, dir string, when time.Time) ([]builtModule, error) {
	order, err := r.releaseOrder()
	if err != nil {
		return nil, err
	}
	hashes := map[string]builtModule{}
	var built []builtModule
	for _, m := range order {
		goMod, err := requireAt(m, version)
		if err != nil {
			return nil, err
		}
		goSum, err := sumWith(r, m, version, hashes)
		if err != nil {
			return nil, err
		}
		b, err := writeModule(r, m, version, dir, when, goMod, goSum)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", m.Path, err)
		}
		hashes[m.Path] = b
		built = append(built, b)
	}
	return built, nil
}

// requireAt returns m's go.mod with every requirement on ours set to version (unchanged
// bytes when all already are).
func requireAt(m *repoModule, version string) ([]byte, error) {
	if !slices.ContainsFunc(m.Ours, func(v module.Version) bool { return v.Version != version }) {
		return m.GoMod, nil
	}
	f, err := modfile.Parse("go.mod", m.GoMod, nil)
	if err != nil {
		return nil, err
	}
	for _, req := range m.Ours {
		if err := f.AddRequire(req.Path, version); err != nil {
			return nil, err
		}
	}
	f.Cleanup()
	return modfile.Format(f.Syntax), nil
}

// sumWith returns m's go.sum without lines for modules of ours, plus the lines of those m
// depends on at version, from hashes (filled in release order, so already there).
func sumWith(r *repo, m *repoModule, version string, hashes map[string]builtModule) ([]byte, error) {
	data, err := os.ReadFile(filepath.Join(r.Root, m.Dir, "go.sum"))
	if err != nil && !os.IsNotExist(err) {
		return nil, err
	}
	var lines []string
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		mod, _, _ := strings.Cut(sc.Text(), " ")
		if _, ours := r.byPath[mod]; !ours && strings.TrimSpace(sc.Text()) != "" {
			lines = append(lines, sc.Text())
		}
	}
	for _, dep := range r.dependencies(m) {
		b, ok := hashes[dep.Path]
		if !ok {
			return nil, fmt.Errorf("%s requires %s, which is not published", m.Path, dep.Path)
		}
		lines = append(lines, dep.Path+" "+version+" "+b.ZipHash, dep.Path+" "+version+"/go.mod "+b.ModHash)
	}
	if len(lines) == 0 {
		return nil, nil
	}
	slices.Sort(lines)
	return []byte(strings.Join(lines, "\n") + "\n"), nil
}

// writeModule writes m's list, .info, .mod and .zip files at version into the proxy dir.
func writeModule(r *repo, m *repoModule, version, dir string, when time.Time, goMod, goSum []byte) (builtModule, error) {
	mv := module.Version{Path: m.Path, Version: version}
	escaped, err := module.EscapePath(m.Path)
	if err != nil {
		return builtModule{}, err
	}
	vdir := filepath.Join(dir, filepath.FromSlash(escaped), "@v")
	if err := os.MkdirAll(vdir, 0o755); err != nil {
		return builtModule{}, err
	}
	files, err := moduleFiles(filepath.Join(r.Root, filepath.FromSlash(m.Dir)), goMod, goSum)
	if err != nil {
		return builtModule{}, err
	}
	zipPath := filepath.Join(vdir, version+".zip")
	out, err := os.Create(zipPath)
	if err != nil {
		return builtModule{}, err
	}
	if err := zip.Create(out, mv, files); err != nil {
		out.Close()
		return builtModule{}, err
	}
	if err := out.Close(); err != nil {
		return builtModule{}, err
	}
	info, err := json.Marshal(struct {
		Version string
		Time    time.Time
	}{version, when.UTC()})
	if err != nil {
		return builtModule{}, err
	}
	for name, data := range map[string][]byte{"list": []byte(version + "\n"), version + ".info": info, version + ".mod": goMod} {
		if err := os.WriteFile(filepath.Join(vdir, name), data, 0o644); err != nil {
			return builtModule{}, err
		}
	}
	zipHash, err := dirhash.HashZip(zipPath, dirhash.Hash1)
	if err != nil {
		return builtModule{}, err
	}
	modHash, err := dirhash.Hash1([]string{"go.mod"}, func(string) (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(goMod)), nil
	})
	if err != nil {
		return builtModule{}, err
	}
	st, err := os.Stat(zipPath)
	if err != nil {
		return builtModule{}, err
	}
	checked, err := zip.CheckZip(mv, zipPath)
	if err != nil {
		return builtModule{}, err
	}
	return builtModule{Module: mv, Files: len(checked.Valid), Size: st.Size(), ZipHash: zipHash, ModHash: modHash}, nil
}

// moduleFiles lists the files of the module in dir that git tracks or would track, with
// go.mod and go.sum given by goMod and goSum (go.sum left out when nil). zip.Create leaves
// out the files of nested modules and vendor directories itself.
func moduleFiles(dir string, goMod, goSum []byte) ([]zip.File, error) {
	out, err := gitOutput(dir, "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	if err != nil {
		return nil, err
	}
	files := []zip.File{memFile{"go.mod", goMod}}
	if goSum != nil {
		files = append(files, memFile{"go.sum", goSum})
	}
	for _, p := range strings.Split(strings.TrimSuffix(out, "\x00"), "\x00") {
		if p == "" || p == "go.mod" || p == "go.sum" {
			continue
		}
		if _, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(p))); os.IsNotExist(err) {
			continue // tracked but deleted in the working tree
		}
		files = append(files, diskFile{dir: dir, path: p})
	}
	return files, nil
}

// diskFile is a file of the working tree, for zip.Create.
type diskFile struct{ dir, path string }

func (f diskFile) Path() string { return f.path }
func (f diskFile) Lstat() (fs.FileInfo, error) {
	return os.Lstat(filepath.Join(f.dir, filepath.FromSlash(f.path)))
}
func (f diskFile) Open() (io.ReadCloser, error) {
	return os.Open(filepath.Join(f.dir, filepath.FromSlash(f.path)))
}

// memFile is a file whose content the check wrote (go.mod, go.sum), for zip.Create.
type memFile struct {
	path string
	data []byte
}

func (f memFile) Path() string                 { return f.path }
func (f memFile) Lstat() (fs.FileInfo, error)  { return memInfo(f), nil }
func (f memFile) Open() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(f.data)), nil }

// memInfo is the fs.FileInfo of a memFile: a regular file, mode 0644.
type memInfo memFile

func (i memInfo) Name() string       { return path.Base(i.path) }
func (i memInfo) Size() int64        { return int64(len(i.data)) }
func (i memInfo) Mode() fs.FileMode  { return 0o644 }
func (i memInfo) ModTime() time.Time { return time.Time{} }
func (i memInfo) IsDir() bool        { return false }
func (i memInfo) Sys() any           { return nil }

// gitOutput runs git in dir and returns its standard output.
func gitOutput(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("git %s in %s (the check reads a git checkout): %v: %s", strings.Join(args, " "), dir, err, strings.TrimSpace(stderr.String()))
	}
	return string(out), nil
}
