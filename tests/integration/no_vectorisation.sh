# The single-byte probes do one scalar load per byte: no SIMD in their
# loops (the compiler must not turn mmap_byte into a vectorised scan), and
# the accessor's ReadByte is a real call from the loop.
source "$(dirname "$0")/tap.bash"

BUILD=${BUILD:-build}
disasm() { # disasm OBJECT FUNCTION
	objdump -dr --no-show-raw-insn "$1" | awk -v f="<$2>:" '$2 == f { on = 1; next } on && /^$/ { exit } on'
}
body=$(disasm "$BUILD/probes/mmap_byte.o" mmap_byte_run)
check "mmap_byte_run found" test -n "$body"
check "mmap_byte: no SIMD registers" bash -c '! grep -Eq "%[xyz]mm" <<<"$1"' _ "$body"
check "mmap_byte: byte loads" grep -Eq 'movzbl|movzx|movb' <<<"$body"
check "mmap_byte: locked add for the atomic tally" grep -q 'lock' <<<"$body"

body=$(disasm "$BUILD/probes/accessor_byte.o" accessor_byte_run)
check "accessor_byte: calls ReadByte per byte" grep -Eq 'R_X86_64_PLT32[[:space:]]+mmp_view_read_byte-' <<<"$body"
check "accessor_byte: calls the held variant" grep -Eq 'R_X86_64_PLT32[[:space:]]+mmp_view_read_byte_held-' <<<"$body"
check "accessor_byte: no SIMD registers" bash -c '! grep -Eq "%[xyz]mm" <<<"$1"' _ "$body"

body=$(disasm "$BUILD/probes/view.o" mmp_view_acquire)
check "acquire: a CAS loop (lock cmpxchg)" grep -q 'lock cmpxchg' <<<"$body"
body=$(disasm "$BUILD/probes/view.o" mmp_view_read_byte)
check "ReadByte: calls acquire and release" test "$(grep -Ec 'R_X86_64_PLT32[[:space:]]+mmp_view_(acquire|release)-' <<<"$body")" -eq 2

body=$(disasm "$BUILD/probes/limit.o" zeros_wide)
check "limit: vectorised (ymm)" grep -q '%ymm' <<<"$body"
done_testing
