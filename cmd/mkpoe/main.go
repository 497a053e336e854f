// Command mkpoe learns multi-modal similarity from relative comparisons
// (McFee & Lanckriet, JMLR 2011). Run "mkpoe help" for its commands.
package main

import (
	"context"
	"os"

	"github.com/mkpoe/mkpoe/experiments"
)

func main() {
	os.Exit(experiments.Main(context.Background(), os.Args[1:], os.Stdout, os.Stderr))
}
