# bpmnlite build and test entry points. Everything the project needs is
# fetched by the Go toolchain from go.mod; nothing is installed by hand.

GO ?= go
PKGS := ./...

.PHONY: all build test vet race fuzz bench run chaos npm-client

all: build

build:
	$(GO) build $(PKGS)

vet:
	$(GO) vet $(PKGS)

# The test command of the README: vet, then the whole suite with the race
# detector on SQLite, and on PostgreSQL too when BPMNLITE_TEST_DATABASE_URL is
# set (CI sets it; under CI=true the PostgreSQL run is mandatory). With
# Node.js on the machine it first installs Camunda's npm external-task
# client (pinned) into a cache outside the repository, and a test runs it
# against bpmnlite serve; without Node.js that test says it skips. The
# runtime package's tests take about 15 minutes under -race on two cores:
# the timeout leaves room for them above Go's default of ten.
test: vet npm-client
	BPMNLITE_NPM_CLIENT=$(NPM_CLIENT_DIR) $(GO) test -race -count=1 -timeout 45m $(PKGS)

NPM_CLIENT_VERSION := 3.1.0
NPM_CLIENT_DIR ?= $(HOME)/.cache/bpmnlite/npm-client-$(NPM_CLIENT_VERSION)

npm-client:
	@if command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1; then \
	  test -d $(NPM_CLIENT_DIR)/node_modules/camunda-external-task-client-js || \
	  npm install --prefix $(NPM_CLIENT_DIR) --no-audit --no-fund --loglevel=error camunda-external-task-client-js@$(NPM_CLIENT_VERSION); \
	else echo "Node.js not found: the npm external-task client test will skip"; fi

# The fault suite: engine processes killed, frozen and cut off by a
# database stop while instances are being started (a private PostgreSQL
# cluster it makes itself with initdb/pg_ctl), and an SQLite process killed
# and restarted. It prints one summary per backend and fails when a bound
# is missed (docs/reliability.md): too few instances or jobs in flight, an
# instance lost, an effect duplicated, a retry charged where none may be, a
# slow takeover or recovery.
chaos:
	$(GO) run ./cmd/bpmnchaos

fuzz:
	$(GO) test ./bpmn -run '^$$' -fuzz FuzzParse -fuzztime 30s

bench:
	$(GO) test -run '^$$' -bench . -benchtime 3s ./...

# Runs an example process on the embedded SQLite default.
run:
	$(GO) run ./cmd/bpmnlite run examples/processes/order.bpmn -var 'customer={"name":"Ada","status":"VIP"}' -var quantity=2
