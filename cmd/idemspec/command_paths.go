package main

import (
	"os"
	"path/filepath"
	"strings"
)

// resolvePaths makes the relative paths a command names absolute,
// against dir ("": idemspec's working directory), for a command run in
// a working directory of its own (an unmodified program keeps its state
// in its trial's): `python3 examples/agent.py` run from the repository
// root finds examples/agent.py in every trial, as it does in contract
// mode, which runs the command where idemspec was started.
//
// A word is resolved when it is a plain word (no quote, no $, no glob,
// no redirection: the shell would read it as it is) and names an
// existing file: with a / in it (examples/agent.py, ./bin/agent), or,
// past a command's first word, an existing regular file (agent.py); a
// --flag=PATH and a NAME=PATH are resolved in their value. Nothing past
// a cd is, nor anything else: the shell resolves it in the trial's
// directory, as the program expects.
func resolvePaths(command, dir string) string {
	if dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return command
		}
		dir = wd
	}
	var b strings.Builder
	first := true // the next word starts a command (its name)
	for i := 0; i < len(command); {
		if c := command[i]; c == ' ' || c == '\t' || c == '\n' {
			if c == '\n' {
				first = true
			}
			b.WriteByte(c)
			i++
			continue
		}
		j := i
		for j < len(command) && command[j] != ' ' && command[j] != '\t' && command[j] != '\n' {
			j++
		}
		word, start := command[i:j], i
		i = j
		// "agent.py;" ends a command as "agent.py ;" does.
		end := ""
		if len(word) > 1 && strings.HasSuffix(word, ";") {
			word, end = word[:len(word)-1], ";"
		}
		if first && word == "cd" {
			// Past a cd, a relative path is relative to where it went.
			b.WriteString(command[start:])
			break
		}
		switch {
		case word == ";" || word == "&&" || word == "||" || word == "|" || word == "&" || word == "exec" || word == "env":
			b.WriteString(word)
			first = true
			continue
		case strings.ContainsAny(word, "'\"\\$`*?[]{}()<>;&|~#"):
			b.WriteString(word + end)
			first = end != ""
			continue
		}
		prefix, value := "", word
		if k := strings.IndexByte(word, '='); k >= 0 {
			prefix, value = word[:k+1], word[k+1:]
			if !strings.HasPrefix(word, "-") && first {
				// NAME=VALUE before the command: still its first word next.
				b.WriteString(prefix + resolvedPath(value, dir, true) + end)
				continue
			}
		}
		b.WriteString(prefix + resolvedPath(value, dir, first || prefix != "") + end)
		first = end != ""
	}
	return b.String()
}

// resolvedPath is word made absolute against dir when it names an
// existing file there: with a / in it, any; without, a regular file,
// unless the word is in a command name's place (or a flag's value),
// where a bare word is the shell's or the program's to read.
func resolvedPath(word, dir string, bareKept bool) string {
	if word == "" || filepath.IsAbs(word) || strings.HasPrefix(word, "-") {
		return word
	}
	p := filepath.Join(dir, word)
	info, err := os.Stat(p)
	switch {
	case err != nil:
		return word
	case strings.Contains(word, "/"):
	case bareKept || !info.Mode().IsRegular():
		return word // a bare name the shell looks up in PATH, or a word that only looks like a file
	}
	return shellQuote(p)
}
