// Package slurm runs an experiment's plan on a Slurm cluster: it selects
// shards of the plan (Shard), splits the plan into array jobs below the
// cluster's MaxArraySize (Plan), renders their sbatch scripts and the merge
// job, and chains their submissions (Submissions). It knows the plan only as
// the ordered []results.Task of experiments.Plan, so the harness
// (experiments) imports it, not the reverse; the command line
// (cmd/mkpoe/internal/cli) parses the flags and prints.
//
// # Conventions
//
// A plan is a fixed, ordered list of tasks; phase-0 tasks (native, cv) come
// first, then phase-1 refits, which read their split's cv results. A shard
// runs a subset of the plan in the shared run directory, writing
// tasks/<id>.json exactly as a local run does, and never merges:
//
//   - --task-index I alone runs plan task I (the array index is the plan
//     index; this is what the generated sbatch scripts use, so that a
//     resubmission list printed by "mkpoe status" names plan tasks);
//   - --task-index I --task-count N (or --shard I/N) runs the tasks whose
//     plan index is ≡ I (mod N): N shards cover every task exactly once and
//     each gets a mix of rows and splits;
//   - with neither, SLURM_ARRAY_TASK_ID is the index, and the count is
//     --task-count, else SLURM_ARRAY_TASK_COUNT when the array is exactly
//     0..COUNT-1, else none (a resubmitted list such as 3,7-9 runs tasks 3,
//     7, 8 and 9);
//   - --phase P keeps only the tasks of phase P.
//
// Tasks already done under the same config are skipped, so overlapping or
// repeated shards are harmless. Plan indices are 0-based. Errors caused by
// the user's flags or environment are errkind input errors (exit status 2
// of mkpoe); their messages name the flags of mkpoe run and mkpoe slurm.
// docs/slurm.md is the user's guide.
package slurm
