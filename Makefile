# bpmnlite build and test entry points. Everything the project needs is
# fetched by the Go toolchain from go.mod; nothing is installed by hand.

GO ?= go
PKGS := ./...

.PHONY: all build test vet race fuzz bench run chaos

all: build

build:
	$(GO) build $(PKGS)

vet:
	$(GO) vet $(PKGS)

# The test command of the README: vet, then the whole suite with the race
# detector on SQLite, and on PostgreSQL too when BPMNLITE_TEST_DATABASE_URL is
# set (CI sets it; under CI=true the PostgreSQL run is mandatory).
test: vet
	$(GO) test -race -count=1 $(PKGS)

# The fault suite: engine processes killed, frozen past their locks and cut
# off by a database stop (a private PostgreSQL cluster it makes itself with
# initdb/pg_ctl), and an SQLite process killed and reopened. It prints one
# summary line per backend and fails when an instance is lost or an effect
# duplicated.
chaos:
	$(GO) run ./cmd/bpmnchaos

fuzz:
	$(GO) test ./bpmn -run '^$$' -fuzz FuzzParse -fuzztime 30s

bench:
	$(GO) test -run '^$$' -bench . -benchtime 3s ./...

# Runs an example process on the embedded SQLite default.
run:
	$(GO) run ./cmd/bpmnlite run examples/processes/order.bpmn
