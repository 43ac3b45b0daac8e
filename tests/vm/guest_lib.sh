# Sourced by the guest scripts (busybox sh; in the image as /vm/guest_lib.sh).
export MMPROF_DATA=/tmp/data
send() { echo "@@file $1"; cat "$1"; echo "@@end"; } # a file back to the host
run() { # run NAME COMMAND...: its stdout, stderr and exit status as NAME.*, sent
	name=$1; shift
	"$@" >"$name.out" 2>"$name.err"
	echo $? >"$name.rc"
	for f in "$name".*; do send "$f"; done
}
