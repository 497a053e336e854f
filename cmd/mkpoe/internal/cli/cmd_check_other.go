package cli

import (
	"errors"
	"fmt"
	"io"

	"github.com/mkpoe/mkpoe/experiments"
)

// checkOtherFile is "mkpoe check" of a file of mkpoe's that is not a config
// (err from loading it is an *experiments.NotConfigError): it says what the
// file is and which command reads it, and reads it with that command's
// reader: exit 0 if it reads, bad input if not. Any other err is returned.
func checkOtherFile(err error, stdout io.Writer) error {
	var other *experiments.NotConfigError
	if !errors.As(err, &other) {
		return err
	}
	holds, rerr := other.Read()
	if rerr != nil {
		return badInput(fmt.Errorf("%s is %s, not an experiment config, and it does not read as one: %w", other.Path, other.What, rerr))
	}
	fmt.Fprintf(stdout, "%s is %s, not an experiment config: %s.\nit reads back: %s\n", other.Path, other.What, other.ReadBy, holds)
	return nil
}
