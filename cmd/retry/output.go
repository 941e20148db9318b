package main

import (
	"crypto/rand"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// bodyOutput is where retry http writes the final response: stdout, or the file of
// --output. The file is checked before the first request, so that a path that cannot be
// written is a usage error before anything is sent, but it is replaced only by a whole
// response: a regular file (or one still to be created) is written through a temporary file
// beside it, renamed over it once the response is complete (close). A run that gets no
// response, or a body cut off by the deadline, a signal or a broken connection, leaves an
// existing file as it was and creates none. A file that is not regular (a pipe, a device
// such as /dev/stdout) is written in place.
type bodyOutput struct {
	io.Writer
	name     string   // "stdout", or the path given to --output
	file     *os.File // nil for stdout
	target   string   // the file that a complete response replaces; "" when file is it
	complete bool     // the whole response was written (complete)
	fail     bool     // --fail: write no body for a final status of 400 or more
	skipped  int      // the final status whose body --fail kept out; 0 when none
}

// openOutput prepares path for writing the response: a temporary file beside it (beside
// the file a symbolic link names), or path itself when it exists and is not a regular file.
// Its errors name path.
func openOutput(path string) (*bodyOutput, error) {
	target, err := filepath.EvalSymlinks(path)
	if errors.Is(err, fs.ErrNotExist) {
		target, err = path, nil
	}
	if err != nil {
		return nil, err
	}
	info, err := os.Stat(target)
	mode, replacing := fs.FileMode(0o666), err == nil // a new file's mode is 0666 less the umask
	switch {
	case err == nil && !info.Mode().IsRegular():
		f, err := os.OpenFile(target, os.O_WRONLY, 0)
		if err != nil {
			return nil, err
		}
		return &bodyOutput{Writer: f, name: path, file: f}, nil
	case err == nil:
		// The file will be replaced, not written: still refuse one the user cannot write.
		f, err := os.OpenFile(target, os.O_WRONLY, 0)
		if err != nil {
			return nil, err
		}
		f.Close()
		mode = info.Mode().Perm()
	case !errors.Is(err, fs.ErrNotExist):
		return nil, err
	}
	tmp := filepath.Join(filepath.Dir(target), "."+filepath.Base(target)+".retry-"+rand.Text()[:12])
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = &fs.PathError{Op: "open", Path: path, Err: pe.Err}
		}
		return nil, err
	}
	if replacing { // keep the replaced file's permissions, which the umask may have cut
		if err := f.Chmod(mode); err != nil {
			f.Close()
			os.Remove(tmp)
			return nil, err
		}
	}
	return &bodyOutput{Writer: f, name: path, file: f, target: target}, nil
}

// done marks the response as written whole: close then puts it in place.
func (o *bodyOutput) done() { o.complete = true }

// restart empties a temporary file, so that a response can be written again from its start,
// and reports whether it could: false for stdout and for a file written in place, whose
// bytes cannot be taken back.
func (o *bodyOutput) restart() bool {
	if o.target == "" {
		return false
	}
	if o.file.Truncate(0) != nil {
		return false
	}
	_, err := o.file.Seek(0, io.SeekStart)
	return err == nil
}

// close closes the file and, for a temporary file, renames it over the target when the
// response was complete, or removes it otherwise.
func (o *bodyOutput) close() error {
	if o.file == nil {
		return nil
	}
	err := o.file.Close()
	if o.target == "" {
		return err
	}
	if err != nil || !o.complete {
		os.Remove(o.file.Name())
		return err
	}
	if err := os.Rename(o.file.Name(), o.target); err != nil {
		os.Remove(o.file.Name())
		return err
	}
	return nil
}
