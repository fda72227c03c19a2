# idemspec: the two commands a newcomer needs are `make run` and `make test`.
GO       ?= go
BIN      := bin/idemspec
REPORTS  ?= idemspec-report
TARGET   ?= fake:reference

.PHONY: all build run test vet fmt-check tidy-check docs clean bench dist image

all: build

build:
	$(GO) build -o $(BIN) ./cmd/idemspec

## run: the full suite against the built-in reference server; reports in $(REPORTS)/
run: build
	./$(BIN) run --target $(TARGET) --report-dir $(REPORTS)

## docs: regenerate docs/CONFORMANCE.md from the check registry (a test fails when it is stale)
docs: build
	./$(BIN) list --format markdown > docs/CONFORMANCE.md.tmp
	mv docs/CONFORMANCE.md.tmp docs/CONFORMANCE.md

## test: formatting, a tidy go.mod, vet, and every test with the race detector
test: fmt-check tidy-check vet
	$(GO) test -race -count=1 -timeout 60m ./...

## bench: the performance benchmarks and their summary table (docs/PERFORMANCE.md);
## minutes, not seconds. BENCH_COUNT repeats each; raw output in $(BENCH_OUT)/
BENCH_COUNT ?= 3
BENCH_OUT   ?= bench-out
bench:
	COUNT=$(BENCH_COUNT) GO=$(GO) bench/run $(BENCH_OUT)

## dist: release archives for linux, darwin and windows (amd64, arm64), static
## binaries, and their SHA-256 checksums, in dist/. VERSION defaults to
## `git describe --tags --always --dirty` (see cmd/dist)
VERSION ?=
dist:
	rm -rf dist
	$(GO) run ./cmd/dist -version "$(VERSION)" -out dist

## image: the FROM scratch container image (Containerfile) of the linux binary
## for this machine's architecture, tagged idemspec:latest
PODMAN ?= podman
IMAGE_ARCH = $(shell $(GO) env GOARCH)
image:
	rm -rf dist/image
	$(GO) run ./cmd/dist -version "$(VERSION)" -out dist/image -platforms linux/$(IMAGE_ARCH)
	$(PODMAN) build -f Containerfile -t idemspec:latest dist/image/idemspec_linux_$(IMAGE_ARCH)

vet:
	$(GO) vet ./...

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

## tidy-check: go.mod and go.sum say exactly what the code imports
tidy-check:
	@$(GO) mod tidy -diff >/dev/null || { echo "go.mod is not tidy: run go mod tidy"; $(GO) mod tidy -diff; exit 1; }

clean:
	rm -rf bin dist $(REPORTS) $(BENCH_OUT)
