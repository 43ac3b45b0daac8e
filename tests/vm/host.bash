# Sourced by tests/integration/vm_*.sh after tap.bash: boots one guest
# (tests/vm/vm.sh) and ends the script where the machine cannot be had.
[ "${MMPROF_VM:-1}" = 0 ] && skip_rest "emulated machines: off (MMPROF_VM=0)"

# vm_unavailable WHAT WHY: skip the rest, or fail it under
# MMPROF_VM_REQUIRE=1 (CI), where the machine must be had.
vm_unavailable() {
	[ "${MMPROF_VM_REQUIRE:-0}" = 1 ] || skip_rest "$1: $2"
	fail "$1 can be had (MMPROF_VM_REQUIRE=1)" "$2"
	done_testing; exit 0
}

# boot_guest WHAT ARCH MMPROF SCRIPT [PATH...]: one boot running SCRIPT,
# with each PATH of this tree at /src/PATH; sets G to the directory of the
# files the guest sent back.
boot_guest() {
	local what=$1 why rc
	G=$TMP/guest
	why=$(tests/vm/vm.sh "$2" "$3" "$4" "$G" "${@:5}" 2>&1)
	rc=$?
	case $rc in
	0) ok "$what booted and ran its batch" ;;
	77) vm_unavailable "$what" "$why" ;;
	*) fail "$what booted and ran its batch" "$why" "$(tail -20 "$G/console.log" 2>/dev/null)"
	   done_testing; exit 0 ;;
	esac
}

rc_of() { cat "$G/$1.rc" 2>/dev/null; } # rc_of NAME: the exit status of guest run NAME
