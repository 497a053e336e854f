package experiments

import (
	"math"
	"runtime"

	"github.com/mkpoe/mkpoe/internal/cputime"
	"github.com/mkpoe/mkpoe/pkg/mkpoe"
	"github.com/mkpoe/mkpoe/pkg/results"
)

// taskClock measures the CPU time of one task (TaskResult.CPUSeconds,
// ProcessCPUSeconds and Stages). Its goroutine is locked to its OS thread
// from startClock to stop, so that the thread's CPU time is the task's own
// work on that goroutine. Work the task hands to other goroutines is not
// in it, and the solver hands off much: the interior-point stage factors
// its Newton matrix on a goroutine of its own and forms it with
// GOMAXPROCS workers (pkg/mkpoe/internal/conic: ipm.go, pairs.go,
// chol.go), linalg.Parallel adds helpers when a core is free, a K4 fit
// projects several full blocks concurrently (problem.forFullBlocks), and
// the runtime collects garbage in the background. The thread's time is
// therefore a lower bound, far below the task's cost when the
// interior-point stage dominates (on the quickstart's full K1 fold, 0.20
// s of 0.52 s). When the task runs alone (one worker), the process's CPU
// time over the task counts all of it, and the stages are measured on it;
// with several workers the process's time would mix the tasks, so it is
// not recorded and the stages use the thread's. Cost claims rest on the
// process's time of tasks run alone (mkpoe cost, MeasureCost).
//
// A nil *taskClock measures nothing (recheck, benchmarks).
type taskClock struct {
	alone              bool
	thread0, process0  float64
	threadOK, procOK   bool
	last               float64 // the stage clock's reading at the last fit event
	lastIter           int     // the fit's iterations counted so far
	lastStage          string  // the stage of the fit's last report
	stages             map[string]*results.StageCost
	stageClockReadable bool
}

// startClock locks the calling goroutine to its thread and starts the
// clock; alone says no other task runs beside this one. The caller must
// call stop on the same goroutine.
func startClock(alone bool) *taskClock {
	runtime.LockOSThread()
	k := &taskClock{alone: alone, stages: map[string]*results.StageCost{}}
	k.thread0, k.threadOK = cputime.Thread()
	if alone {
		k.process0, k.procOK = cputime.Process()
	}
	k.stageClockReadable = k.threadOK && (!alone || k.procOK)
	return k
}

// stageNow reads the clock the stages are measured on (see taskClock).
func (k *taskClock) stageNow() float64 {
	var s float64
	if k.alone {
		s, _ = cputime.Process()
	} else {
		s, _ = cputime.Thread()
	}
	return s
}

// recorder starts the clock of a fit and returns the fit's Recorder: it
// charges the CPU time since the previous report, and the iterations since
// then (Iteration.Iter counts them across stages; a stage may report an
// iteration twice, or leave one unreported), to the stage of each report
// it sees, then calls next (nil: none). endFit charges the rest.
func (k *taskClock) recorder(next mkpoe.Recorder) mkpoe.Recorder {
	if k == nil || !k.stageClockReadable {
		return next
	}
	k.last, k.lastIter, k.lastStage = k.stageNow(), 0, ""
	return func(it mkpoe.Iteration) {
		now := k.stageNow()
		k.charge(string(it.Stage), max(it.Iter-k.lastIter, 0), now-k.last)
		k.last, k.lastIter, k.lastStage = now, max(it.Iter, k.lastIter), string(it.Stage)
		if next != nil {
			next(it)
		}
	}
}

// endFit ends the clock of a fit that took iters iterations in all
// (Stats.Iterations; 0 if it failed): the iterations no report counted go
// to the last stage reported, and the CPU time since the last report (or
// the fit's start) to "setup", the work of a fit outside its iterations.
func (k *taskClock) endFit(iters int) {
	if k == nil || !k.stageClockReadable {
		return
	}
	now := k.stageNow()
	if iters > k.lastIter && k.lastStage != "" {
		k.charge(k.lastStage, iters-k.lastIter, 0)
	}
	k.charge("setup", 0, now-k.last)
	k.last = now
}

func (k *taskClock) charge(stage string, iters int, sec float64) {
	s := k.stages[stage]
	if s == nil {
		s = &results.StageCost{Stage: stage}
		k.stages[stage] = s
	}
	s.Iterations += iters
	s.CPUSeconds += math.Max(sec, 0)
}

// stop writes the task's CPU times into res and unlocks the thread.
func (k *taskClock) stop(res *results.TaskResult) {
	defer runtime.UnlockOSThread()
	round := func(x float64) *float64 { x = math.Round(x*1e6) / 1e6; return &x }
	if t1, ok := cputime.Thread(); ok && k.threadOK {
		res.CPUSeconds = round(t1 - k.thread0)
	}
	if p1, ok := cputime.Process(); ok && k.procOK {
		res.ProcessCPUSeconds = round(p1 - k.process0)
	}
	var st []results.StageCost
	for _, s := range k.stages {
		c := *s
		c.CPUSeconds = *round(c.CPUSeconds)
		st = append(st, c)
	}
	res.Stages = results.AddStages(nil, st)
	res.StageClock = ""
	if res.Stages != nil {
		res.StageClock = results.StageClockThread
		if k.alone {
			res.StageClock = results.StageClockProcess
		}
	}
}
