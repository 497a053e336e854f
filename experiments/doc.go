// Package experiments is the mkpoe harness and command line: it reads inputs,
// runs the solver of package mkpoe, and writes models and results. It is the
// only package that knows every concrete type; the packages under pkg/ stay
// small and free of CLI concerns.
package experiments
