// Package experiments is the mkpoe harness: a YAML experiment config
// (Config, LoadConfig, Check), its plan of tasks (Plan), the runner that
// executes them in parallel and resumably (Run), the run directory's store,
// the summary (Merge), its report (WriteReport, through pkg/report) and
// the state of a run directory (Status). Tasks run the nested
// cross-validation of pkg/cv over the data sets of pkg/data and kernels of
// pkg/kernels; results are written in the schema of pkg/results.
// Sharding a run and its Slurm jobs live in experiments/slurm. The command
// line lives apart, in cmd/mkpoe/internal/cli.
package experiments
