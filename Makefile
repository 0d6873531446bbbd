# The README's two commands: `make demo` and `make test`. Both install what is missing first.
SWIFT ?= swift
FUZZ_SECONDS ?= 60

.PHONY: deps build demo test bench fuzz clean

deps:
	@scripts/install-deps

build: deps
	$(SWIFT) build

demo: build
	$(SWIFT) run vaultctl demo

test: build
	/usr/bin/python3 testvectors/generate.py --check
	/usr/bin/python3 testvectors/independent/peer_pairing.py --check
	/usr/bin/python3 testvectors/independent/peer_channel_messages.py --check
	/usr/bin/python3 testvectors/independent/replication_messages.py --check
	/usr/bin/python3 testvectors/independent/witness_vectors.py --check
	/usr/bin/python3 testvectors/independent/control_messages.py --check
	/usr/bin/python3 testvectors/independent/share_grant.py --check
	/usr/bin/python3 testvectors/independent/leak_guard_fingerprints.py --check
	@if [ -d ../shared/vectors ]; then /usr/bin/python3 testvectors/independent/peer_pairing.py --self-test ../shared/vectors; \
	  else echo "NOTE: ../shared/vectors not found: the independent pairing code's self-test against published vectors is skipped"; fi
	VAULTCTL_BIN="$$($(SWIFT) build --show-bin-path)/vaultctl" $(SWIFT) test

bench: deps
	$(SWIFT) build -c release --product vaultctl
	$(SWIFT) build -c release --product vaultbench
	"$$($(SWIFT) build -c release --show-bin-path)/vaultbench"

fuzz: deps
	scripts/fuzz $(FUZZ_SECONDS)

clean:
	rm -rf .build fuzz-build
