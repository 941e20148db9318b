package main

import (
	"crypto/rand"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
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
	kept     int64    // bytes of the temporary file that precede the response (keepWritten)
	fail     bool     // --fail: write no body for a final status of 400 or more
	skipped  int      // the final status whose body --fail kept out; 0 when none
}

// openOutput prepares path for writing the response: a temporary file beside it (beside
// the file a symbolic link names), or path itself when it exists and is not a regular file.
// A path that names one of the process's open descriptors (/dev/stdout, /dev/stderr,
// /dev/fd/N, /proc/self/fd/N) is written in place through that descriptor, whatever it is
// open on: stdout and stderr through the command's own writers. Resolving it would find the regular file the
// shell redirected stdout to and rename a temporary file over it, so that the shell's
// other output to that file, before and after, would be lost. Its errors name path.
func openOutput(path string, stdout, stderr io.Writer) (*bodyOutput, error) {
	if fd, ok := descriptorPath(path); ok {
		switch fd {
		case 1:
			return &bodyOutput{Writer: stdout, name: path}, nil
		case 2:
			return &bodyOutput{Writer: stderr, name: path}, nil
		}
		// The descriptor itself, not the file reopened (its own offset would write over
		// what the shell wrote before).
		if !descriptorOpen(fd) {
			return nil, &fs.PathError{Op: "open", Path: path, Err: errors.New("not an open file descriptor of retry")}
		}
		f := os.NewFile(uintptr(fd), path)
		return &bodyOutput{Writer: f, name: path, file: f}, nil
	}
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

// keepWritten keeps what was written so far ahead of the response, whatever restart does:
// the headers of the redirects -i -L followed.
func (o *bodyOutput) keepWritten() {
	if o.target != "" {
		o.kept, _ = o.file.Seek(0, io.SeekCurrent)
	}
}

// restartable reports whether the output can start over: a file written through a temporary
// one, not stdout nor a file written in place.
func (o *bodyOutput) restartable() bool { return o.target != "" }

// restart empties a temporary file (down to what keepWritten kept), so that a response can
// be written again from its start, and reports whether it could: false for stdout and for a
// file written in place, whose bytes cannot be taken back.
func (o *bodyOutput) restart() bool {
	if o.target == "" {
		return false
	}
	if o.file.Truncate(o.kept) != nil {
		return false
	}
	_, err := o.file.Seek(o.kept, io.SeekStart)
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

// descriptorPath reports whether path names one of the process's open file descriptors,
// and which: /dev/stdout (1), /dev/stderr (2), /dev/stdin (0), /dev/fd/N,
// /proc/self/fd/N or /proc/thread-self/fd/N.
func descriptorPath(path string) (fd int, ok bool) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return 0, false
	}
	switch abs {
	case "/dev/stdin":
		return 0, true
	case "/dev/stdout":
		return 1, true
	case "/dev/stderr":
		return 2, true
	}
	for _, dir := range []string{"/dev/fd/", "/proc/self/fd/", "/proc/thread-self/fd/"} {
		if n, found := strings.CutPrefix(abs, dir); found {
			fd, err := strconv.Atoi(n)
			return fd, err == nil && fd >= 0
		}
	}
	return 0, false
}
