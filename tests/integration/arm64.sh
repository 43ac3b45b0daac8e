# mmprof on arm64: the cross build (make cross-arm64, warning-free with
# -Werror), the probes' vector code on each architecture, and the x86-64
# baseline that CPUs without AVX2 run, exercised under qemu-user.
source "$(dirname "$0")/tap.bash"

if ! command -v aarch64-linux-gnu-gcc >/dev/null; then
	skip_rest "no arm64 cross compiler (aarch64-linux-gnu-gcc: make deps installs it where apt can)"
fi
A=build/arm64
log=$TMP/cross.log
if make -s -j2 cross-arm64 >"$log" 2>&1; then
	ok "make cross-arm64: binary, unit tests and helpers, -Wall -Wextra -Werror"
else
	fail "make cross-arm64" "$(grep -m5 -E 'error|warning' "$log")" "$(tail -3 "$log")"
	done_testing
	exit 0
fi
check "the binary is arm64" bash -c 'file -b "$1" | grep -q "ARM aarch64"' _ "$A/mmprof"

disasm() { # disasm OBJDUMP OBJECT FUNCTION
	"$1" -dr --no-show-raw-insn "$2" | awk -v f="<$3>:" '$2 == f { on = 1; next } on && /^$/ { exit } on'
}
# limit's ceiling on arm64: NEON compares on q registers (a 32-byte generic
# vector there became byte-at-a-time scalar code).
body=$(disasm aarch64-linux-gnu-objdump "$A/probes/limit.o" limit_run)
check "arm64 limit: NEON byte compares (cmeq v.16b)" grep -Eq 'cmeq[[:space:]]+v[0-9]+\.16b' <<<"$body"
# The single-byte probe stays one scalar load per byte there too.
body=$(disasm aarch64-linux-gnu-objdump "$A/probes/mmap_byte.o" mmap_byte_run)
check "arm64 mmap_byte: byte loads" grep -Eq 'ldrb' <<<"$body"
check "arm64 mmap_byte: no SIMD registers" bash -c '! grep -Eq "[[:space:],]v[0-9]+\." <<<"$1"' _ "$body"

# x86-64 without AVX2 runs the SSE2 baseline: vector compares, and the
# same counts as a naive loop on a CPU model that lacks AVX2.
body=$(disasm objdump "${BUILD:-build}/probes/limit.o" limit_run)
check "x86-64 limit baseline: SSE2 compares (pcmpeqb xmm)" grep -Eq 'pcmpeqb[[:space:]]+%xmm' <<<"$body"
if ! command -v qemu-x86_64 >/dev/null; then
	skip "x86-64 without AVX2: qemu-user is not installed (make deps)"
elif out=$(qemu-x86_64 -cpu Nehalem "${BUILD:-build}/tests/test_probes" 2>&1); then
	ok "x86-64 without AVX2 (qemu-x86_64 -cpu Nehalem): every probe's counts, limit's baseline included"
else
	fail "x86-64 without AVX2: test_probes" "$(grep -m5 -E 'FAIL|Error' <<<"$out")"
fi
done_testing
