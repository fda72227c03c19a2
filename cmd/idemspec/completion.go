package main

import (
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/idemspec/idemspec/harness/check"
	"github.com/idemspec/idemspec/internal/fakename"
	"github.com/idemspec/idemspec/targets"
)

// Shell completion (`idemspec completion bash|zsh|fish|powershell`,
// cobra's) offers, besides flags and files: the built-in fakes for
// --target, the check IDs for --label-filter, and the operations of the
// target file --target names for --operation.

// flagCompletions complete a flag's value by its name, whatever the
// command.
var flagCompletions = map[string]cobra.CompletionFunc{
	"target":       completeTarget,
	"label-filter": completeCheckIDs,
	"operation":    completeOperations,
	"bug":          completeClientBugs,
}

// completeFlags registers the completions of the flags cmd has.
func completeFlags(cmd *cobra.Command) {
	for name, complete := range flagCompletions {
		if cmd.Flags().Lookup(name) != nil {
			cmd.RegisterFlagCompletionFunc(name, complete)
		}
	}
}

// completeTarget offers fake:NAME for each built-in server, and files.
func completeTarget(_ *cobra.Command, _ []string, prefix string) ([]cobra.Completion, cobra.ShellCompDirective) {
	if !strings.HasPrefix(prefix, "f") {
		return nil, cobra.ShellCompDirectiveDefault // a file
	}
	return matching(fakename.Names(), prefix), cobra.ShellCompDirectiveDefault
}

// completeClientBugs offers the reference client's mutants.
func completeClientBugs(_ *cobra.Command, _ []string, prefix string) ([]cobra.Completion, cobra.ShellCompDirective) {
	names := []string{fakename.Reference}
	for _, m := range fakename.MutantsOf(fakename.OfClient) {
		names = append(names, m.Name)
	}
	return matching(names, prefix), cobra.ShellCompDirectiveNoFileComp
}

// completeCheckIDs offers the catalogue's check IDs, each with its
// title, as the last word of a label filter ("S1 || S" completes S2...).
func completeCheckIDs(_ *cobra.Command, _ []string, prefix string) ([]cobra.Completion, cobra.ShellCompDirective) {
	cut := strings.LastIndexAny(prefix, " |&!(,")
	head, word := prefix[:cut+1], prefix[cut+1:]
	var out []cobra.Completion
	for _, c := range check.All() {
		if strings.HasPrefix(c.ID, word) {
			out = append(out, cobra.CompletionWithDesc(head+c.ID, c.Title))
		}
	}
	return out, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveNoSpace
}

// completeOperations offers the operations of the file --target names
// (nothing when it names none, a fake, or a file that does not load).
func completeOperations(cmd *cobra.Command, _ []string, prefix string) ([]cobra.Completion, cobra.ShellCompDirective) {
	file, _ := cmd.Flags().GetString("target")
	if file == "" || fakename.Is(file) {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	t, err := targets.Parse(file, data)
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	var names []string
	for _, op := range t.Each() {
		if op.Operation != "" {
			names = append(names, op.Operation)
		}
	}
	return matching(names, prefix), cobra.ShellCompDirectiveNoFileComp
}

func matching(names []string, prefix string) []cobra.Completion {
	var out []cobra.Completion
	for _, n := range names {
		if strings.HasPrefix(n, prefix) && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}
