package bpmn

import "strings"

// warnLoops warns about cycles of sequence flows that contain no wait
// state, no asynchronous continuation and no join: such a loop runs inside
// one transaction until a condition leaves it, and one that never does
// ends at the engine's operation limit instead of at a wait state.
func (p *parser) warnLoops(activities []*Activity) {
	for _, cycle := range cycles(activities) {
		if breaksLoop(cycle) {
			continue
		}
		ids := make([]string, len(cycle))
		for i, a := range cycle {
			ids[i] = "'" + a.ID + "'"
		}
		p.warnf(cycle[0].site(), "%s form a loop with no wait state, asynchronous continuation or join: it runs in one transaction until a condition leaves it, and fails at the engine's operation limit if none does",
			strings.Join(ids, ", "))
	}
	for _, a := range activities {
		if a.Kind == SubProcess {
			p.warnLoops(a.Activities)
		}
	}
}

// breaksLoop reports whether a path going round the cycle stops at one of
// its activities: a wait state, an asynchronous continuation, or a join
// that waits for other paths.
func breaksLoop(cycle []*Activity) bool {
	for _, a := range cycle {
		if waits(a) {
			return true
		}
	}
	return false
}

func waits(a *Activity) bool {
	if a.AsyncBefore || a.AsyncAfter || (a.MultiInstance != nil && (a.MultiInstance.AsyncBefore || a.MultiInstance.AsyncAfter)) {
		return true
	}
	switch a.Kind {
	case UserTask, ReceiveTask, IntermediateCatchEvent, EventBasedGateway, CallActivity:
		return true // a call activity waits as long as the instance it calls
	case ServiceTask, SendTask, BusinessRuleTask:
		return a.External
	case ParallelGateway, InclusiveGateway:
		return len(a.Incoming) > 1
	case SubProcess:
		for _, in := range a.Activities {
			if waits(in) {
				return true
			}
		}
	}
	return false
}

// cycles returns the strongly connected components of the flow graph that
// contain a cycle, each in document order (Tarjan's algorithm; it recurses
// once per activity on a path, which Go's growing stacks take).
func cycles(activities []*Activity) [][]*Activity {
	index := make(map[*Activity]int, len(activities))
	low := make(map[*Activity]int, len(activities))
	onStack := make(map[*Activity]bool)
	order := make(map[*Activity]int, len(activities))
	for i, a := range activities {
		order[a] = i
	}
	var stack []*Activity
	var out [][]*Activity
	next := 0
	var visit func(a *Activity)
	visit = func(a *Activity) {
		index[a], low[a] = next, next
		next++
		stack = append(stack, a)
		onStack[a] = true
		for _, f := range a.Outgoing {
			b := f.Target
			if b == nil {
				continue
			}
			if _, seen := index[b]; !seen {
				visit(b)
				low[a] = min(low[a], low[b])
			} else if onStack[b] {
				low[a] = min(low[a], index[b])
			}
		}
		if low[a] != index[a] {
			return
		}
		var comp []*Activity
		for {
			b := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			onStack[b] = false
			comp = append(comp, b)
			if b == a {
				break
			}
		}
		if len(comp) > 1 || selfLoop(a) {
			sortByOrder(comp, order)
			out = append(out, comp)
		}
	}
	for _, a := range activities {
		if _, seen := index[a]; !seen {
			visit(a)
		}
	}
	return out
}

func selfLoop(a *Activity) bool {
	for _, f := range a.Outgoing {
		if f.Target == a {
			return true
		}
	}
	return false
}

func sortByOrder(as []*Activity, order map[*Activity]int) {
	for i := 1; i < len(as); i++ {
		for j := i; j > 0 && order[as[j]] < order[as[j-1]]; j-- {
			as[j], as[j-1] = as[j-1], as[j]
		}
	}
}
