# Helpers of the osprof serve tests (tests/sh/kern_prom_serve*.sh); source
# after lib.sh.

# start_serve SERVE-ARGS...: starts `osprof serve --listen 127.0.0.1:0 ARGS`
# in the background, sets serve_pid and serve_addr (HOST:PORT) once it says
# where it listens (a bounded wait on its stderr, $TMP/serve.err).
start_serve() {
	"$OSPROF" serve --listen 127.0.0.1:0 "$@" 2>"$TMP/serve.err" &
	serve_pid=$!
	for _ in $(seq 600); do
		grep -q 'serving http' "$TMP/serve.err" && break
		kill -0 "$serve_pid" 2>/dev/null || fail "serve exited: $(cat "$TMP/serve.err")"
		sleep 0.05
	done
	serve_addr=$(sed -n 's|.*serving http://\([^/]*\)/metrics.*|\1|p' "$TMP/serve.err")
	[ -n "$serve_addr" ] || fail "serve did not say where it listens: $(cat "$TMP/serve.err")"
}

# workload_copy NAME: a copy of kern_sys under a name of this test's own
# (other tests may run kern_sys meanwhile); sets WL and COMM.
workload_copy() {
	WL=$TMP/$1$$
	cp "$PROGS/kern_sys" "$WL" || fail "copy workload"
	COMM=$(basename "$WL" | cut -c1-15)
}
