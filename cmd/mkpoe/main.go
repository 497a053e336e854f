// Command mkpoe learns multi-modal similarity from relative comparisons
// (McFee & Lanckriet, JMLR 2011). Run "mkpoe help" for its commands.
//
// The first SIGINT (Ctrl-C) or SIGTERM cancels the command's context: a run
// stops its fits within about one solver iteration, keeps every finished
// task and exits with status 130. A second signal kills the process at once
// (the default behaviour, restored after the first).
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/mkpoe/mkpoe/cmd/mkpoe/internal/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		<-ctx.Done()
		stop() // the next signal terminates the process
	}()
	code := cli.Main(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
