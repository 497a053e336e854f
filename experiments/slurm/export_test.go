package slurm

// FakePlan lets the external tests (package slurm_test) build the same
// fake plans as the internal ones.
var FakePlan = fakePlan
