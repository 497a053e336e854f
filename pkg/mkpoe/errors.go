package mkpoe

import (
	"errors"
	"fmt"
)

// ErrInvalidInput is matched (errors.Is) by every error that Fit and its
// variants return for bad inputs or settings: nil, empty or non-finite
// kernels and features, kernels of different sizes, comparisons outside
// 0..n−1, invalid Settings. Any other error from a fit is either the
// cancellation of its context (errors.Is(err, context.Canceled)) or an
// internal error of the solver.
var ErrInvalidInput = errors.New("mkpoe: invalid input")

// ErrTooLarge is matched (errors.Is) by the error of a fit whose
// estimated memory need exceeds Settings.MemoryLimit: the request is
// valid, but too large for the memory its caller gave it.
var ErrTooLarge = errors.New("mkpoe: fit too large for its memory limit")

// inputError is an error caused by the caller's input.
type inputError struct{ err error }

func (e *inputError) Error() string        { return e.err.Error() }
func (e *inputError) Unwrap() error        { return e.err }
func (e *inputError) Is(target error) bool { return target == ErrInvalidInput }

// invalidf formats an input error (fmt.Errorf semantics, %w allowed).
func invalidf(format string, args ...any) error {
	return &inputError{fmt.Errorf(format, args...)}
}
