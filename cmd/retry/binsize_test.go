package main

import (
	"os"
	"testing"
)

// maxBinaryBytes is the most the retry binary may weigh as a plain go build or go install
// makes it, symbols and DWARF included (issue 34: it weighed 35.8 MB; a net/http "hello world"
// weighs 8.5 MB).
const maxBinaryBytes = 20_000_000

// TestBinaryStaysSmall (issue 34) weighs the binary TestMain built.
func TestBinaryStaysSmall(t *testing.T) {
	info, err := os.Stat(retryBin)
	if err != nil {
		t.Fatal(err)
	}
	if info.Size() > maxBinaryBytes {
		t.Errorf("the retry binary weighs %d bytes, over the limit of %d (issue 34). "+
			"README.md beside this file says what keeps it small: nothing may reach text/template "+
			"(cobra's Set*Template), which makes the linker keep every exported method, and the "+
			"simulator's chart must not import gonum.org/v1/plot itself, which links twelve fonts "+
			"and every canvas", info.Size(), maxBinaryBytes)
	}
}
