package main

import (
	"fmt"
	"io"
	"os"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	results := Results{}
	if len(args) == 0 {
		if err := results.Read(stdin); err != nil {
			fmt.Fprintln(stderr, "benchsummary:", err)
			return 2
		}
	}
	for _, path := range args {
		f, err := os.Open(path)
		if err != nil {
			fmt.Fprintln(stderr, "benchsummary:", err)
			return 2
		}
		err = results.Read(f)
		f.Close()
		if err != nil {
			fmt.Fprintf(stderr, "benchsummary: %s: %v\n", path, err)
			return 2
		}
	}
	if len(results) == 0 {
		fmt.Fprintln(stderr, "benchsummary: no benchmark results in the input")
		return 2
	}
	Render(stdout, Judge(Goals, results), results)
	return 0
}
