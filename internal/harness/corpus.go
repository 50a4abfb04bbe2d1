package harness

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/bpmnlite/bpmnlite"
)

// The acceptance corpus: Camunda's own test BPMN files, kept beside the
// repository (../shared/acceptance from the module root) and read in place,
// and the Go versions of the Java delegates they name.

// PrioDir is the corpus folder of Camunda's job priority tests.
const PrioDir = "camunda/job-priority/"

// ModuleRoot returns the directory of the module's go.mod, found from the
// test's working directory (its package directory) upwards.
func ModuleRoot(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatalf("working directory: %v", err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatalf("no go.mod above the test's directory")
		}
		dir = parent
	}
}

// Corpus returns the path of a file of the shared acceptance corpus
// (BPMNLITE_ACCEPTANCE_DIR, else ../shared/acceptance from the module
// root), skipping the test when the corpus is absent.
func Corpus(t testing.TB, rel string) string {
	t.Helper()
	dir := os.Getenv("BPMNLITE_ACCEPTANCE_DIR")
	if dir == "" {
		dir = filepath.Join(ModuleRoot(t), "..", "shared", "acceptance")
	}
	p := filepath.Join(dir, rel)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("acceptance corpus not available (%v); set BPMNLITE_ACCEPTANCE_DIR", err)
	}
	return p
}

// DeployFiles deploys files of the acceptance corpus, skipping the test
// when the corpus is absent.
func (e *Env) DeployFiles(paths ...string) *bpmnlite.Deployment {
	e.T.Helper()
	var full []string
	for _, p := range paths {
		full = append(full, Corpus(e.T, p))
	}
	d, err := e.Eng.DeployFiles(e.Ctx, "acceptance", full...)
	if err != nil {
		e.T.Fatalf("deploy %v: %v", paths, err)
	}
	return d
}

// RedeployFiles deploys corpus files again as a new deployment, unchanged
// or not (no duplicate filtering), as Camunda's tests redeploy.
func (e *Env) RedeployFiles(paths ...string) *bpmnlite.Deployment {
	e.T.Helper()
	req := bpmnlite.DeployRequest{Name: "acceptance", Source: "files"}
	for _, p := range paths {
		b, err := os.ReadFile(Corpus(e.T, p))
		if err != nil {
			e.T.Fatal(err)
		}
		req.Resources = append(req.Resources, bpmnlite.Resource{Name: p, Bytes: b})
	}
	d, err := e.Eng.Deploy(e.Ctx, req)
	if err != nil {
		e.T.Fatalf("deploy %v: %v", paths, err)
	}
	return d
}

// DeployExample deploys one file of the module's examples/processes.
func (e *Env) DeployExample(name string) {
	e.T.Helper()
	if _, err := e.Eng.DeployFiles(e.Ctx, name, filepath.Join(ModuleRoot(e.T), "examples", "processes", name+".bpmn")); err != nil {
		e.T.Fatalf("deploy example %s: %v", name, err)
	}
}

// Delegate class names used by the corpus (SCENARIOS.md, last table).
const (
	clsAsyncService          = "org.camunda.bpm.engine.test.bpmn.async.AsyncService"
	clsFailingAsyncService   = "org.camunda.bpm.engine.test.bpmn.async.FailingAsyncService"
	clsJobExecutorFailing    = "org.camunda.bpm.engine.test.jobexecutor.FailingDelegate"
	clsAlwaysFailing         = "org.camunda.bpm.engine.test.api.mgmt.AlwaysFailingDelegate"
	clsMgmtFailing           = "org.camunda.bpm.engine.test.api.mgmt.FailingDelegate"
	clsFailWithParameter     = "org.camunda.bpm.engine.test.api.mgmt.FailingDelegateWithFailParameter"
	clsRuntimeFailing        = "org.camunda.bpm.engine.test.api.runtime.FailingDelegate"
	clsMultiInstanceDelegate = "org.camunda.bpm.engine.test.bpmn.multiinstance.MultiInstanceDelegate"
)

// CorpusDelegates are the Go versions of the corpus's Java delegates,
// registered on one engine. Classes that do not exist in Camunda either
// (cmd.FailingDelegate, this.class.does.not.Exist, ...) stay unregistered, so
// that they fail when their job runs.
type CorpusDelegates struct {
	mu         sync.Mutex
	asyncCalls int // AsyncService invocations (Camunda's "invoked" flag is calls > 0)
}

// Calls returns how many times AsyncService ran.
func (d *CorpusDelegates) Calls() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.asyncCalls
}

// RegisterCorpusDelegates registers the corpus delegates on e's engine.
func (e *Env) RegisterCorpusDelegates() *CorpusDelegates {
	d := &CorpusDelegates{}
	reg := func(name string, f func(ex *bpmnlite.Execution) error) {
		e.Eng.RegisterDelegate(name, bpmnlite.DelegateFunc(func(_ context.Context, ex *bpmnlite.Execution) error { return f(ex) }))
	}
	reg(clsAsyncService, func(*bpmnlite.Execution) error {
		d.mu.Lock()
		defer d.mu.Unlock()
		d.asyncCalls++
		return nil
	})
	reg(clsFailingAsyncService, func(*bpmnlite.Execution) error { return errors.New("FailingAsyncService: expected failure") })
	reg(clsJobExecutorFailing, func(*bpmnlite.Execution) error { return errors.New("Expected Exception") })
	reg(clsAlwaysFailing, func(*bpmnlite.Execution) error { return errors.New("Expected exception") })
	failIf := func(msg string) func(ex *bpmnlite.Execution) error {
		return func(ex *bpmnlite.Execution) error {
			v, _, err := ex.Variable("fail")
			if err != nil {
				return err
			}
			if v == true {
				return errors.New(msg)
			}
			return nil
		}
	}
	reg(clsMgmtFailing, failIf("Expected exception"))
	reg(clsFailWithParameter, failIf("Expected exception"))
	reg(clsRuntimeFailing, func(ex *bpmnlite.Execution) error {
		v, _, err := ex.Variable("fail")
		if err != nil || v == false {
			return err
		}
		msg := "Expected_exception."
		if m, ok, _ := ex.Variable("message"); ok && m != nil {
			msg = fmt.Sprint(m)
		}
		return errors.New(msg)
	})
	reg(clsMultiInstanceDelegate, func(ex *bpmnlite.Execution) error {
		r, _, err := ex.Variable("result")
		if err != nil {
			return err
		}
		factor := int64(2)
		if item, ok, _ := ex.Variable("item"); ok && item != nil {
			n, isInt := item.(int64)
			if !isInt {
				return fmt.Errorf("MultiInstanceDelegate: item is %T", item)
			}
			factor = n
		}
		n, ok := r.(int64)
		if !ok {
			return fmt.Errorf("MultiInstanceDelegate: result is %T", r)
		}
		return ex.SetVariable("result", n*factor)
	})
	return d
}
