package main

import (
	"errors"
	"io"
	"io/fs"
	"os"
)

// bodyOutput is where retry http writes the final response: stdout, or the file of
// --output. The file is opened before the first request, so that a path that cannot be
// written is a usage error before anything is sent, but its content is replaced only when a
// response is to be written (begin): a run that gets no response leaves an existing file as
// it was and removes the file it created.
type bodyOutput struct {
	io.Writer
	file    *os.File // nil for stdout
	created bool     // the file did not exist before
	begun   bool
}

// openOutput opens path for writing without truncating it, creating it when it does not
// exist.
func openOutput(path string) (*bodyOutput, error) {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	created := false
	if errors.Is(err, fs.ErrNotExist) {
		f, err = os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
		created = true
	}
	if err != nil {
		return nil, err
	}
	return &bodyOutput{Writer: f, file: f, created: created}, nil
}

// begin empties the file (a regular one: not a pipe or a device) before the response is
// written to it.
func (o *bodyOutput) begin() error {
	o.begun = true
	if o.file == nil {
		return nil
	}
	info, err := o.file.Stat()
	if err != nil || !info.Mode().IsRegular() {
		return err
	}
	return o.file.Truncate(0)
}

// close closes the file, and removes it when it created it and no response came.
func (o *bodyOutput) close() error {
	if o.file == nil {
		return nil
	}
	err := o.file.Close()
	if o.created && !o.begun {
		return os.Remove(o.file.Name())
	}
	return err
}
