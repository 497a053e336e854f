package sysmem

import (
	"strings"
	"testing"
)

func TestParseMemAvailable(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		want       uint64
	}{
		{"meminfo", "MemTotal:       24568392 kB\nMemFree:        23000000 kB\nMemAvailable:   23456789 kB\n", 23456789 * 1024},
		{"absent", "MemTotal:       24568392 kB\n", 0},
		{"no unit", "MemAvailable:   23456789\n", 0},
		{"not a number", "MemAvailable:   lots kB\n", 0},
		{"empty", "", 0},
	} {
		if got := parseMemAvailable(strings.NewReader(tc.text)); got != tc.want {
			t.Errorf("%s: %d, want %d", tc.name, got, tc.want)
		}
	}
}
