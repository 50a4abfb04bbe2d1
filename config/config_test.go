package config_test

import (
	"strings"
	"testing"
	"time"

	"github.com/bpmnlite/bpmnlite/config"
)

func TestWithDefaults(t *testing.T) {
	c := config.Config{JobExecutor: config.JobExecutor{AcquireByDueDate: true}}.WithDefaults()
	if c.Database.URL != config.DefaultDatabase || c.History.Level != config.HistoryAudit ||
		c.Jobs.DefaultRetries != 3 || !c.Jobs.EnsureDueDateNotNull ||
		c.Limits.MaxOperations != config.DefaultMaxOperations || c.Limits.MaxVariableBytes != 4<<20 ||
		c.History.CleanupInterval != time.Hour || c.Clock == nil || c.Logger == nil ||
		c.JobExecutor.Clock == nil || c.JobExecutor.Logger != c.Logger {
		t.Fatalf("defaults not set: %+v", c)
	}
	// A negative limit means no bound and stays; a set value stays.
	c = config.Config{Limits: config.Limits{MaxOperations: -1, MaxResourceBytes: 5}}.WithDefaults()
	if c.Limits.MaxOperations != -1 || c.Limits.MaxResourceBytes != 5 {
		t.Fatalf("set limits changed: %+v", c.Limits)
	}
}

func TestHistoryLevelNames(t *testing.T) {
	for _, l := range []config.HistoryLevel{config.HistoryNone, config.HistoryActivity, config.HistoryAudit, config.HistoryFull} {
		got, err := config.ParseHistoryLevel(l.String())
		if err != nil || got != l {
			t.Errorf("%v: parsed back as %v, %v", l, got, err)
		}
	}
	if !(config.HistoryNone < config.HistoryActivity && config.HistoryActivity < config.HistoryAudit && config.HistoryAudit < config.HistoryFull) {
		t.Error("levels must rank from none to full")
	}
	if config.HistoryLevel(0).String() != "audit" {
		t.Error("the zero level stands for the default, audit")
	}
	if _, err := config.ParseHistoryLevel("verbose"); err == nil || !strings.Contains(err.Error(), "verbose") {
		t.Errorf("an unknown name: %v", err)
	}
}

func TestValidate(t *testing.T) {
	lo, hi := int64(5), int64(1)
	for name, c := range map[string]config.Config{
		"History.Level 9": {History: config.History{Level: 9}},
		"PriorityMin 5":   {JobExecutor: config.JobExecutor{PriorityMin: &lo, PriorityMax: &hi}},
	} {
		if err := c.Validate(); err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("%s: %v", name, err)
		}
	}
	if err := (config.Config{}).WithDefaults().Validate(); err != nil {
		t.Errorf("the defaults: %v", err)
	}
}
