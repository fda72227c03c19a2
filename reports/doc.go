// Package reports is the compliance report: one model built from the
// Ginkgo run plus the recorded evidence, and writers for it (JSON with a
// stable schema, JUnit XML, Markdown, a self-contained HTML page) and for
// a matrix comparing several runs. A report is what users hand to someone
// else as proof, so writers never drop a check, never write half a file,
// and never see a secret: the model is redacted when it is built.
//
// Writers take a Report and nothing else; they know no check by name, so
// a check added to the catalogue shows up in every format unchanged.
package reports
