package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/bpmnlite/bpmnlite/persistence"
)

// cluster is a private PostgreSQL cluster in a temporary directory on a
// free port: the suite stops and starts it, which it must never do to the
// machine's shared cluster.
type cluster struct {
	bin, dir, data string
	port           int
	asPostgres     bool // running as root: the server's commands run as postgres
}

// newCluster creates and starts a cluster with initdb and pg_ctl.
func newCluster(ctx context.Context) (*cluster, error) {
	bin, err := pgBin()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "bpmnchaos-pg")
	if err != nil {
		return nil, err
	}
	c := &cluster{bin: bin, dir: dir, data: filepath.Join(dir, "data"), asPostgres: os.Geteuid() == 0}
	if c.asPostgres {
		// initdb refuses to run as root; the directory must be the server's.
		u, err := user.Lookup("postgres")
		if err != nil {
			return nil, fmt.Errorf("running as root needs the postgres user: %w", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chown(dir, uid, gid); err != nil {
			return nil, err
		}
	}
	if c.port, err = freePort(); err != nil {
		return nil, err
	}
	if err := c.run(ctx, "initdb", "-D", c.data, "-U", "postgres", "--auth=trust", "--no-sync"); err != nil {
		c.remove()
		return nil, err
	}
	if err := c.start(ctx); err != nil {
		c.remove()
		return nil, err
	}
	if _, err := persistence.CreateDatabase(ctx, c.url("postgres"), "chaos", false); err != nil {
		c.stop(ctx, "immediate")
		c.remove()
		return nil, err
	}
	return c, nil
}

// pgBin finds PostgreSQL's server programs.
func pgBin() (string, error) {
	if out, err := exec.Command("pg_config", "--bindir").Output(); err == nil {
		if dir := strings.TrimSpace(string(out)); fileExists(filepath.Join(dir, "initdb")) {
			return dir, nil
		}
	}
	matches, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	if len(matches) == 0 {
		return "", fmt.Errorf("initdb not found (pg_config --bindir, /usr/lib/postgresql/*/bin)")
	}
	return filepath.Dir(matches[len(matches)-1]), nil
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func (c *cluster) url(db string) string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", c.port, db)
}

// run runs a server program, as postgres when the suite runs as root.
func (c *cluster) run(ctx context.Context, prog string, args ...string) error {
	path := filepath.Join(c.bin, prog)
	var cmd *exec.Cmd
	if c.asPostgres {
		cmd = exec.CommandContext(ctx, "runuser", append([]string{"-u", "postgres", "--", path}, args...)...)
	} else {
		cmd = exec.CommandContext(ctx, path, args...)
	}
	cmd.Dir = c.dir
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%s %s: %w\n%s", prog, strings.Join(args, " "), err, out)
	}
	return nil
}

func (c *cluster) start(ctx context.Context) error {
	// Logged in UTC, so that readyAt can read the log's timestamps.
	opts := fmt.Sprintf("-p %d -k %s -c listen_addresses=127.0.0.1 -c max_connections=200 -c log_timezone=UTC", c.port, c.dir)
	return c.run(ctx, "pg_ctl", "-D", c.data, "-l", filepath.Join(c.dir, "server.log"), "-w", "-o", opts, "start")
}

// readyAt returns when the server last logged that it accepts
// connections: the moment it answers again after a start, which pg_ctl -w
// reports only at its next poll.
func (c *cluster) readyAt() (time.Time, error) {
	lines, err := readLines(filepath.Join(c.dir, "server.log"))
	if err != nil {
		return time.Time{}, err
	}
	for i := len(lines) - 1; i >= 0; i-- {
		// Default log_line_prefix: "2026-11-27 03:50:01.123 UTC [pid] ".
		if f := strings.Fields(lines[i]); len(f) > 3 && strings.Contains(lines[i], "ready to accept connections") {
			return time.Parse("2006-01-02 15:04:05.000 MST", strings.Join(f[:3], " "))
		}
	}
	return time.Time{}, fmt.Errorf("server.log: no \"ready to accept connections\" line")
}

// stop stops the server: "fast" rolls back open transactions, "immediate"
// is a crash.
func (c *cluster) stop(ctx context.Context, mode string) error {
	return c.run(ctx, "pg_ctl", "-D", c.data, "-m", mode, "-w", "stop")
}

func (c *cluster) remove() { _ = os.RemoveAll(c.dir) }

// proc is a node process the suite started, ended by its PID only.
type proc struct {
	cmd  *exec.Cmd
	done chan struct{} // closed once the process exited
}

func startProc(logPath string, args ...string) (*proc, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	logFile, err := os.OpenFile(logPath, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(self, append([]string{"node"}, args...)...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := cmd.Start(); err != nil {
		logFile.Close()
		return nil, err
	}
	p := &proc{cmd: cmd, done: make(chan struct{})}
	go func() { _ = cmd.Wait(); logFile.Close(); close(p.done) }()
	return p, nil
}

func (p *proc) signal(s syscall.Signal) { _ = p.cmd.Process.Signal(s) }

// kill ends the process at once, as a crash would.
func (p *proc) kill() {
	p.signal(syscall.SIGKILL)
	<-p.done
}

// end asks the process to stop gracefully and kills it if it has not
// within its grace time.
func (p *proc) end() {
	p.signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-timeAfter(15):
		p.kill()
	}
}
