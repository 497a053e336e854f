// Package sysmem tells how much memory the machine can still give, for the
// memory limit the CLI and the experiment harness pass to each fit
// (mkpoe.Settings.MemoryLimit). The solver library itself never asks the
// system.
package sysmem

import (
	"bufio"
	"io"
	"os"
	"strconv"
	"strings"
)

// Available returns the bytes the system can still give (Linux:
// MemAvailable of /proc/meminfo), 0 when unknown (no limit).
func Available() uint64 {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0
	}
	defer f.Close()
	return parseMemAvailable(f)
}

// parseMemAvailable reads MemAvailable (in kB) from a /proc/meminfo text,
// 0 when absent or malformed.
func parseMemAvailable(r io.Reader) uint64 {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "MemAvailable:"); ok {
			fields := strings.Fields(rest)
			if len(fields) == 2 && fields[1] == "kB" {
				if kb, err := strconv.ParseUint(fields[0], 10, 64); err == nil {
					return kb * 1024
				}
			}
		}
	}
	return 0
}
