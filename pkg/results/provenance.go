package results

// ProvenanceFile is the name of a run directory's provenance record.
const ProvenanceFile = "provenance.json"

// Provenance says where a finished run's numbers come from: the config,
// the code and build, the machine, when and how long, and how many fits,
// certified to what gap. Merge writes it beside summary.json; the results
// committed under results/<config>/ carry it, and docs/results.md quotes
// it (mkpoe resultsdoc).
type Provenance struct {
	Config     string `json:"config"`      // experiment name
	ConfigHash string `json:"config_hash"` // Config.Hash of the resolved config
	// Commit is the git commit of the code that ran (the binary's VCS stamp,
	// else git in the working directory), and Dirty whether tracked files
	// differed from it; empty and nil when unknown.
	Commit string `json:"commit,omitempty"`
	Dirty  *bool  `json:"dirty,omitempty"`
	Go     string `json:"go"`
	// BuildTags are the binary's build tags ("openblas" for the OpenBLAS
	// build); LinalgBackend is "gonum" or "openblas", with OpenBLAS's
	// kernels (OpenBLASCore), its build description (OpenBLASConfig) and the
	// OPENBLAS_CORETYPE the run had (empty: OpenBLAS's own choice).
	BuildTags        string `json:"build_tags"`
	LinalgBackend    string `json:"linalg_backend"`
	OpenBLASCore     string `json:"openblas_core,omitempty"`
	OpenBLASConfig   string `json:"openblas_config,omitempty"`
	OpenBLASCoretype string `json:"openblas_coretype,omitempty"`
	CPUModel         string `json:"cpu_model,omitempty"`
	Cores            int    `json:"cores,omitempty"`
	OS               string `json:"os"`
	Workers          int    `json:"workers,omitempty"` // 0: unknown (Slurm)
	Started          string `json:"started"`           // RFC 3339, UTC: see WallSeconds
	Finished         string `json:"finished"`          // RFC 3339, UTC
	// WallSeconds is Finished − Started: from the start of the last `mkpoe
	// run` on the directory to the end of its last task. Resumed says some
	// tasks were reused from an earlier invocation, whose time it does not
	// count. TaskSeconds sums every task's own time (timings.json), over all
	// invocations and workers.
	WallSeconds float64 `json:"wall_seconds"`
	Resumed     bool    `json:"resumed"`
	Tasks       int     `json:"tasks"`
	TaskSeconds float64 `json:"task_seconds"`
	// Fits, UnconvergedFits, StationaryFits and MaxGap total the rows'
	// (Row.Fits, ...): the solver runs, those stopped at the iteration
	// limit above the solver's tolerance, those stopped at a stationary point
	// (a fixed rank's) without certifying it (absent: none), and the
	// largest certified relative gap. Fits − UnconvergedFits −
	// StationaryFits were certified.
	Fits            int     `json:"fits"`
	UnconvergedFits int     `json:"unconverged_fits"`
	StationaryFits  int     `json:"stationary_fits,omitempty"`
	MaxGap          float64 `json:"max_gap"`
	// Rows is what each learned row cost, in the config's order.
	Rows []RowCost `json:"rows,omitempty"`
}

// RowCost is the computing cost of one learned row over all its splits:
// the time of its tasks (cv and refit, summed over workers) and the solver
// iterations of all its fits. The paper's claim that graph processing cuts
// the cost of learning (Sec. 5.2.4, Table 5) is read from it, and from the
// interleaved repeats of `mkpoe cost` (CostReport), which a shared
// machine's load confounds less.
//
// CPUSeconds and ProcessCPUSeconds sum the tasks' TaskResult fields of the
// same names, nil unless every task of the row recorded them; Stages sums
// their stage costs, on StageClock when every task used the same clock
// (else Stages is nil).
type RowCost struct {
	Label             string      `json:"label"`
	Seconds           float64     `json:"seconds"`
	Iterations        int         `json:"iterations"`
	CPUSeconds        *float64    `json:"cpu_seconds,omitempty"`
	ProcessCPUSeconds *float64    `json:"process_cpu_seconds,omitempty"`
	Stages            []StageCost `json:"stages,omitempty"`
	StageClock        string      `json:"stage_clock,omitempty"`
}

// AddTask adds the cost of one task of the row: its seconds, iterations,
// CPU times and stages. first says it is the row's first task (a nil CPU
// time of a later task makes the row's nil: unknown).
func (rc *RowCost) AddTask(r *TaskResult, first bool) {
	rc.Seconds += r.Seconds
	for _, it := range r.Iterations {
		rc.Iterations += it
	}
	add := func(sum **float64, x *float64) {
		switch {
		case x == nil:
			*sum = nil
		case first:
			v := *x
			*sum = &v
		case *sum != nil:
			v := **sum + *x
			*sum = &v
		}
	}
	add(&rc.CPUSeconds, r.CPUSeconds)
	add(&rc.ProcessCPUSeconds, r.ProcessCPUSeconds)
	switch {
	case first:
		rc.Stages, rc.StageClock = AddStages(nil, r.Stages), r.StageClock
	case rc.StageClock != r.StageClock:
		rc.Stages, rc.StageClock = nil, "mixed"
	case rc.StageClock != "mixed":
		rc.Stages = AddStages(rc.Stages, r.Stages)
	}
}
