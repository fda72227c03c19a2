package testenv

import (
	"flag"
	"strconv"
)

// Parallel sets -test.parallel to n unless the command line gave it: for
// a TestMain (after flag.Parse) whose tests wait on processes or
// servers far more than they use CPU, where GOMAXPROCS at a time would
// leave the cores idle.
func Parallel(n int) {
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
	if !given {
		flag.Set("test.parallel", strconv.Itoa(n))
	}
}
