// Command camundamodels measures how much of Camunda 7's own engine test
// models bpmnlite deploys. It reads a camunda-bpm-platform git repository
// (bare or not; HEAD), finds the BPMN resources under
// engine/src/test/resources that the engine tests deploy, parses each as a
// deployment does, and prints the total, the accepted and the refused,
// with the refusals grouped by reason (the first problem, its quoted names
// normalised):
//
//	go run ./internal/tools/camundamodels -repo /path/to/camunda-bpm-platform
//
// A test deploys a model by its @Deployment annotation: the resources it
// lists (string literals or constants of the test class), or with none the
// default name <package>/<Class>.<method>.bpmn20.xml (or .bpmn) for an
// annotation on a method, <package>/<Class>.bpmn20.xml on a class.
// Models deployed only through the RepositoryService API are not counted.
// -v lists every refused model with its problem.
package main

import (
	"bufio"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/bpmnlite/bpmnlite/bpmn"
	"github.com/bpmnlite/bpmnlite/config"
	"github.com/bpmnlite/bpmnlite/runtime"
)

const (
	javaRoot     = "engine/src/test/java/"
	resourceRoot = "engine/src/test/resources/"
)

var (
	deploymentAnn = regexp.MustCompile(`@Deployment\b(\s*\(([^)]*)\))?`)
	resourcesAttr = regexp.MustCompile(`(?s)resources\s*=\s*(\{(.*?)\}|"[^"]*"|[A-Za-z_][\w.]*)`)
	stringLit     = regexp.MustCompile(`"((?:[^"\\]|\\.)*)"`)
	identifier    = regexp.MustCompile(`^[A-Za-z_][\w.]*$`)
	constant      = regexp.MustCompile(`(?s)\bString\s+(\w+)\s*=\s*((?:"(?:[^"\\]|\\.)*"\s*\+?\s*)+);`)
	methodDecl    = regexp.MustCompile(`(?:void|\w+(?:<[^>]*>)?)\s+(\w+)\s*\(`)
	classDecl     = regexp.MustCompile(`^\s*(?:public\s+|abstract\s+|final\s+)*class\s+\w+`)
	quoted        = regexp.MustCompile(`'[^']*'|"(?:[^"\\]|\\.)*"`)
)

func main() {
	repo := flag.String("repo", "/work/.mirror/camunda+camunda-bpm-platform/repo", "camunda-bpm-platform git repository")
	verbose := flag.Bool("v", false, "list every refused model with its first problem")
	flag.Parse()
	if err := run(*repo, *verbose, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "camundamodels:", err)
		os.Exit(1)
	}
}

func run(repo string, verbose bool, out io.Writer) error {
	files, err := git(repo, "ls-tree", "-r", "--name-only", "HEAD", "--", javaRoot, resourceRoot)
	if err != nil {
		return err
	}
	bpmnFiles := map[string]bool{}
	var javaFiles []string
	for _, f := range strings.Split(strings.TrimSpace(string(files)), "\n") {
		switch {
		case strings.HasPrefix(f, resourceRoot) && isBPMN(f):
			bpmnFiles[strings.TrimPrefix(f, resourceRoot)] = true
		case strings.HasPrefix(f, javaRoot) && strings.HasSuffix(f, ".java"):
			javaFiles = append(javaFiles, f)
		}
	}
	cat, err := newCatFile(repo)
	if err != nil {
		return err
	}
	defer cat.close()
	deployed := map[string]bool{}
	for _, jf := range javaFiles {
		src, err := cat.read("HEAD:" + jf)
		if err != nil {
			return err
		}
		for _, r := range deployedResources(strings.TrimPrefix(jf, javaRoot), string(src), bpmnFiles) {
			if isBPMN(r) && bpmnFiles[r] {
				deployed[r] = true
			}
		}
	}
	names := make([]string, 0, len(deployed))
	for n := range deployed {
		names = append(names, n)
	}
	sort.Strings(names)

	check := func(src string) error { return runtime.CheckExpressionDefaults(src) }
	var accepted, notExecutable int
	reasons := map[string]int{}
	var refusals []string
	for _, n := range names {
		data, err := cat.read("HEAD:" + resourceRoot + n)
		if err != nil {
			return err
		}
		d, err := bpmn.Parse(data, bpmn.ParseOptions{File: n, CheckExpression: check, MaxBytes: config.DefaultMaxResourceBytes})
		if err == nil {
			accepted++
			if len(d.Processes) == 0 {
				notExecutable++
			}
			continue
		}
		var pe *bpmn.ParseError
		if !errors.As(err, &pe) || len(pe.Problems) == 0 {
			reasons[err.Error()]++
			refusals = append(refusals, n+": "+err.Error())
			continue
		}
		reasons[reason(pe.Problems[0])]++
		refusals = append(refusals, pe.Problems[0].String())
	}
	total := len(names)
	refused := total - accepted
	cmmn := 0
	for r, c := range reasons {
		if strings.Contains(r, "CMMN") {
			cmmn += c
		}
	}
	fmt.Fprintf(out, "models deployed by Camunda's engine tests: %d\n", total)
	fmt.Fprintf(out, "accepted: %d (%.1f %%), of which %d have no executable process\n", accepted, percent(accepted, total), notExecutable)
	fmt.Fprintf(out, "refused:  %d (%.1f %%), of which %d for CMMN\n", refused, percent(refused, total), cmmn)
	fmt.Fprintf(out, "accepted without the CMMN ones: %.1f %%\n", percent(accepted, total-cmmn))
	fmt.Fprintln(out, "\nrefusals by reason (first problem):")
	type group struct {
		reason string
		n      int
	}
	var groups []group
	for r, c := range reasons {
		groups = append(groups, group{r, c})
	}
	sort.Slice(groups, func(i, j int) bool {
		if groups[i].n != groups[j].n {
			return groups[i].n > groups[j].n
		}
		return groups[i].reason < groups[j].reason
	})
	for _, g := range groups {
		fmt.Fprintf(out, "%5d  %s\n", g.n, g.reason)
	}
	if verbose {
		fmt.Fprintln(out, "\nrefused models:")
		for _, r := range refusals {
			fmt.Fprintln(out, "  "+r)
		}
	}
	return nil
}

func percent(n, of int) float64 {
	if of == 0 {
		return 0
	}
	return 100 * float64(n) / float64(of)
}

func isBPMN(name string) bool {
	return strings.HasSuffix(name, ".bpmn") || strings.HasSuffix(name, ".bpmn20.xml")
}

// reason is a problem's message with the names it quotes replaced, so that
// the same refusal in different models counts once.
func reason(p bpmn.Problem) string {
	msg := quoted.ReplaceAllString(p.Message, "'…'")
	if strings.HasPrefix(p.Message, "unsupported element type") || strings.Contains(p.ElementType, "/") {
		return p.ElementType + ": " + msg
	}
	return msg
}

// deployedResources lists the classpath resources the @Deployment
// annotations of one test class deploy. rel is the class file's path under
// the test sources root.
func deployedResources(rel, src string, exists map[string]bool) []string {
	classPath := strings.TrimSuffix(rel, ".java")
	consts := constants(src)
	var out []string
	for _, m := range deploymentAnn.FindAllStringSubmatchIndex(src, -1) {
		args := ""
		if m[4] >= 0 {
			args = src[m[4]:m[5]]
		}
		if ra := resourcesAttr.FindStringSubmatch(args); ra != nil {
			list := ra[1]
			if ra[2] != "" || strings.HasPrefix(list, "{") {
				list = ra[2]
			}
			for _, item := range splitTop(list) {
				if v, ok := value(item, consts); ok {
					out = append(out, v)
				}
			}
			continue
		}
		// No resources: the default name, after the method or class the
		// annotation stands on.
		rest := src[m[1]:]
		if loc := classDecl.FindStringIndex(firstDeclLine(rest)); loc != nil {
			out = append(out, defaultName(classPath, "", exists))
			continue
		}
		if mm := methodDecl.FindStringSubmatch(rest); mm != nil {
			out = append(out, defaultName(classPath, mm[1], exists))
		}
	}
	return out
}

// firstDeclLine is the first line after an annotation that is not itself
// an annotation or blank.
func firstDeclLine(s string) string {
	for _, line := range strings.Split(s, "\n") {
		t := strings.TrimSpace(line)
		if t == "" || strings.HasPrefix(t, "@") || strings.HasPrefix(t, "//") {
			continue
		}
		return line
	}
	return ""
}

func defaultName(classPath, method string, exists map[string]bool) string {
	base := classPath
	if method != "" {
		base += "." + method
	}
	for _, suffix := range []string{".bpmn20.xml", ".bpmn"} {
		if exists[base+suffix] {
			return base + suffix
		}
	}
	return base + ".bpmn20.xml"
}

// splitTop splits an annotation's array at its commas.
func splitTop(list string) []string {
	var items []string
	var cur strings.Builder
	inString := false
	for i := 0; i < len(list); i++ {
		c := list[i]
		switch {
		case c == '\\' && inString && i+1 < len(list):
			cur.WriteByte(c)
			i++
			c = list[i]
		case c == '"':
			inString = !inString
		case c == ',' && !inString:
			items = append(items, strings.TrimSpace(cur.String()))
			cur.Reset()
			continue
		}
		cur.WriteByte(c)
	}
	if t := strings.TrimSpace(cur.String()); t != "" {
		items = append(items, t)
	}
	return items
}

// value evaluates an annotation element: string literals joined by +, or
// the name of a String constant of the class.
func value(item string, consts map[string]string) (string, bool) {
	item = strings.TrimSpace(item)
	if identifier.MatchString(item) {
		name := item[strings.LastIndex(item, ".")+1:]
		v, ok := consts[name]
		return v, ok
	}
	var b strings.Builder
	for _, part := range strings.Split(item, "+") {
		part = strings.TrimSpace(part)
		if identifier.MatchString(part) {
			v, ok := consts[part[strings.LastIndex(part, ".")+1:]]
			if !ok {
				return "", false
			}
			b.WriteString(v)
			continue
		}
		s, err := strconv.Unquote(part)
		if err != nil {
			return "", false
		}
		b.WriteString(s)
	}
	return b.String(), b.Len() > 0
}

func constants(src string) map[string]string {
	consts := map[string]string{}
	for _, m := range constant.FindAllStringSubmatch(src, -1) {
		var b strings.Builder
		for _, lit := range stringLit.FindAllStringSubmatch(m[2], -1) {
			s, err := strconv.Unquote(`"` + lit[1] + `"`)
			if err != nil {
				continue
			}
			b.WriteString(s)
		}
		consts[m[1]] = b.String()
	}
	return consts
}

func git(repo string, args ...string) ([]byte, error) {
	cmd := exec.Command("git", append([]string{"-C", repo}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}

// catFile reads many blobs through one git cat-file process.
type catFile struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
}

func newCatFile(repo string) (*catFile, error) {
	cmd := exec.Command("git", "-C", repo, "cat-file", "--batch")
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return &catFile{cmd, in, bufio.NewReader(out)}, nil
}

func (c *catFile) read(object string) ([]byte, error) {
	if _, err := fmt.Fprintln(c.in, object); err != nil {
		return nil, err
	}
	header, err := c.out.ReadString('\n')
	if err != nil {
		return nil, err
	}
	fields := strings.Fields(header)
	if len(fields) != 3 {
		return nil, fmt.Errorf("git cat-file %s: %s", object, strings.TrimSpace(header))
	}
	size, err := strconv.Atoi(fields[2])
	if err != nil {
		return nil, err
	}
	buf := make([]byte, size+1) // the blob and its trailing newline
	if _, err := io.ReadFull(c.out, buf); err != nil {
		return nil, err
	}
	return buf[:size], nil
}

func (c *catFile) close() {
	c.in.Close()
	c.cmd.Wait()
}
