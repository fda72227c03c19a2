package outfile

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// Mode is the mode every file is created with (the umask applies).
const Mode = 0o644

// Create makes a new, empty file at path, replacing whatever file or
// symlink was there. It fails on a directory.
func Create(path string) (*os.File, error) {
	if err := removeLeaf(path); err != nil {
		return nil, err
	}
	// O_EXCL fails on anything (a link included) created meanwhile.
	return os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, Mode)
}

// Append opens path for appending, creating it; a symlink at path makes
// it fail rather than be followed.
func Append(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND|noFollow, Mode)
}

// WriteAtomic renders into a new file beside path and renames it over
// path, so a reader never sees half a file; a symlink at path is
// replaced by the file, not followed.
func WriteAtomic(path string, render func(io.Writer) error) error {
	var buf bytes.Buffer
	if err := render(&buf); err != nil {
		return err
	}
	tmp := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+"."+token())
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_EXCL|os.O_WRONLY, Mode)
	if err != nil {
		return err
	}
	defer os.Remove(tmp)
	if _, err := f.Write(buf.Bytes()); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// removeLeaf removes the file or symlink at path (not what a link points
// to); a directory there is an error.
func removeLeaf(path string) error {
	fi, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return err
	case fi.IsDir():
		return fmt.Errorf("%s is a directory", path)
	}
	return os.Remove(path)
}

func token() string {
	b := make([]byte, 6)
	rand.Read(b)
	return hex.EncodeToString(b)
}
