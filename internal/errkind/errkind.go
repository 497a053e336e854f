// Package errkind classifies the errors of mkpoe's harness and command line
// by whose doing they are, which decides the exit status of cmd/mkpoe: the
// user's input (Input, exit 2), a bug (Internal, exit 3), or an interruption
// that kept what was finished (Interrupted, exit 130). Anything else is a
// failure of the command (exit 1).
package errkind

import "fmt"

// Input marks an error caused by the user's input: flags, files, configs.
type Input struct{ Err error }

func (e Input) Error() string { return e.Err.Error() }
func (e Input) Unwrap() error { return e.Err }

// BadInput wraps err as the user's input error; nil stays nil.
func BadInput(err error) error {
	if err == nil {
		return nil
	}
	return Input{err}
}

// Usagef is a command-line mistake.
func Usagef(format string, args ...any) error { return Input{fmt.Errorf(format, args...)} }

// Internal marks an error that is neither the user's doing nor an
// interruption: a bug in mkpoe.
type Internal struct{ Err error }

func (e Internal) Error() string { return "internal error: " + e.Err.Error() }
func (e Internal) Unwrap() error { return e.Err }

// Interrupted is a command stopped by its context; Msg says what was kept
// and how to resume. It matches the context's error (errors.Is).
type Interrupted struct {
	Msg string
	Err error
}

func (e *Interrupted) Error() string { return e.Msg }
func (e *Interrupted) Unwrap() error { return e.Err }
