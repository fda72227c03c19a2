package harness

// resultOpenFlags is unix's O_NONBLOCK|O_NOFOLLOW (see
// clientresult_unix.go); Windows has neither, and its named pipes do not
// live in the file system, so the file is opened as it is.
const resultOpenFlags = 0
