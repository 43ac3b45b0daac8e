#!/usr/bin/env bash
# Boots an emulated machine from Debian packages and runs one guest script
# in it; the files the guest sends back over the serial console land in a
# directory on the host.
#
#   tests/vm/vm.sh ARCH MMPROF GUEST_SCRIPT OUTDIR [PATH...]
#
# Each PATH (a file or directory of this tree, e.g. build/arm64/tests/x)
# is in the image at /src/PATH, with the shared libraries of the programs
# among them: the unit tests and helpers a guest script runs from /src.
#
# ARCH: x86 (4 NUMA nodes, 2 packages, SLIT 10/16/22) or arm64 (virt,
# -cpu max,pmu=on: a PMU driver).  Everything the guest runs comes from
# Debian packages fetched with apt-get download (the kernel, busybox-static),
# the given mmprof and its shared libraries; nothing is downloaded from
# elsewhere.  The .debs, the unpacked kernel and busybox, and the last image
# stay under build/vm/ so a second run fetches nothing.
#
# Exit 0: the guest ran the script (OUTDIR/console.log, OUTDIR/<file>...).
# Exit 77: this machine cannot do it; the reason is the one line printed.
# Anything else: the boot failed; the console log says how far it got.
set -euo pipefail
cd "$(dirname "$0")/../.."
arch=$1 mmprof=$2 guest=$3 out=$4
shift 4
extra=("$@")
VM=$(realpath -m "${VM_DIR:-${BUILD:-build}/vm}")
TIMEOUT=${VM_TIMEOUT:-420}

case $arch in
x86)
	qemu=qemu-system-x86_64 qemu_pkg=qemu-system-x86 debarch=amd64 triplet=x86_64-linux-gnu
	libdirs="/lib/x86_64-linux-gnu /usr/lib/x86_64-linux-gnu /lib64" readelf=readelf ;;
arm64)
	qemu=qemu-system-aarch64 qemu_pkg=qemu-system-arm debarch=arm64 triplet=aarch64-linux-gnu
	libdirs="/usr/aarch64-linux-gnu/lib /lib/aarch64-linux-gnu /usr/lib/aarch64-linux-gnu"
	readelf=readelf ;;
*) echo "vm.sh: unknown machine '$arch' (x86, arm64)" >&2; exit 2 ;;
esac
skip() { echo "$*"; exit 77; }
command -v "$qemu" >/dev/null || skip "$qemu not found (Debian: apt-get install $qemu_pkg)"
command -v apt-get >/dev/null || skip "no apt-get to fetch the guest kernel and busybox-static"
[ -x "$mmprof" ] || skip "no $arch mmprof at $mmprof"

# The guest's packages, fetched once.  The kernel is the one Debian's
# linux-image-<arch> metapackage names today.
deb_of() { # deb_of PACKAGE: its .deb in the cache, fetched if missing
	local f debs=$VM/debs/$debarch
	mkdir -p "$debs"
	f=$(ls "$debs/$1"_*.deb 2>/dev/null | head -1)
	if [ -z "$f" ]; then
		(cd "$debs" && apt-get download -q "$1:$debarch" >/dev/null 2>&1) ||
			skip "apt-get download $1:$debarch failed (no network or no such package)"
		f=$(ls "$debs/$1"_*.deb | head -1)
	fi
	echo "$f"
}
dir=$VM/$arch
mkdir -p "$dir"
if [ ! -s "$dir/vmlinuz" ]; then
	kpkg=$(apt-cache depends "linux-image-$debarch:$debarch" 2>/dev/null |
		sed -n 's/^ *Depends: \(linux-image-[0-9][^ :]*\).*/\1/p' | head -1)
	[ -n "$kpkg" ] || skip "apt-cache knows no linux-image-$debarch:$debarch (dpkg --add-architecture $debarch; apt-get update)"
	kdeb=$(deb_of "$kpkg")
	dpkg-deb --fsys-tarfile "$kdeb" | tar -xO --wildcards './boot/vmlinuz-*' >"$dir/vmlinuz.tmp"
	mv "$dir/vmlinuz.tmp" "$dir/vmlinuz"
	echo "$kpkg" >"$dir/kernel-package"
fi
if [ ! -x "$dir/busybox" ]; then
	dpkg-deb --fsys-tarfile "$(deb_of busybox-static)" | tar -xO ./bin/busybox >"$dir/busybox.tmp"
	chmod +x "$dir/busybox.tmp" && mv "$dir/busybox.tmp" "$dir/busybox"
fi
# The host's cpio may be missing; the amd64 busybox-static has one.
if command -v cpio >/dev/null; then cpio=(cpio); else
	if [ ! -x "$VM/host/busybox" ]; then
		mkdir -p "$VM/host"
		dpkg-deb --fsys-tarfile "$(debarch=amd64 deb_of busybox-static)" | tar -xO ./bin/busybox >"$VM/host/busybox.tmp"
		chmod +x "$VM/host/busybox.tmp" && mv "$VM/host/busybox.tmp" "$VM/host/busybox"
	fi
	cpio=("$VM/host/busybox" cpio)
fi

# The shared libraries a binary needs, found in the target's library
# directories (readelf, so that it works for a cross-built binary too).
needed() {
	local want=("$@") seen=" " lib d f
	while [ ${#want[@]} -gt 0 ]; do
		f=${want[0]}; want=("${want[@]:1}")
		for lib in $($readelf -d "$f" | sed -n 's/.*Shared library: \[\(.*\)\]/\1/p'); do
			[[ $seen == *" $lib "* ]] && continue
			seen="$seen$lib "
			for d in $libdirs; do
				if [ -e "$d/$lib" ]; then
					echo "$d/$lib"; want+=("$d/$lib"); break
				fi
			done
		done
	done
}

# The image: busybox, mmprof at /bin/mmprof, its libraries where the
# loader looks, the guest script, the configs of tests/vm/ and the guest
# scripts' helpers in /vm, and an
# /init that runs the script and powers off.
root=$dir/root
rm -rf "$root" && mkdir -p "$root"/{bin,proc,sys,dev,tmp,etc,usr/lib}
ln -s usr/lib "$root/lib" && ln -s usr/lib "$root/lib64"
cp "$dir/busybox" "$root/bin/busybox"
cp "$mmprof" "$root/bin/mmprof"
cp "$guest" "$root/guest.sh"
mkdir -p "$root/vm" && cp tests/vm/*.ini tests/vm/guest_lib.sh "$root/vm/"
elves=("$mmprof")
for p in "${extra[@]+"${extra[@]}"}"; do
	[ -e "$p" ] || { echo "vm.sh: no $p to put in the image" >&2; exit 2; }
	mkdir -p "$root/src/$(dirname "$p")"
	cp -a "$p" "$root/src/$p"
	while IFS= read -r f; do
		[ "$(head -c 4 "$f" | od -An -c | tr -d ' ')" = '177ELF' ] && elves+=("$f")
	done < <(find "$p" -type f -perm -u+x)
done
mkdir -p "$root/usr/lib/$triplet"
for f in $(needed "${elves[@]}" | sort -u); do cp -L "$f" "$root/usr/lib/$triplet/"; done
interp=$($readelf -l "$mmprof" | sed -n 's/.*Requesting program interpreter: \(.*\)]/\1/p')
for d in $libdirs; do
	[ -e "$d/$(basename "$interp")" ] || continue
	mkdir -p "$root$(dirname "$interp")"
	cp -L "$d/$(basename "$interp")" "$root$interp"; break
done
cat >"$root/init" <<'INIT'
#!/bin/busybox sh
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mount -t tmpfs tmp /tmp
echo "@@guest-start"
cd /tmp && sh /guest.sh
echo "@@guest-end $?"
poweroff -f
INIT
chmod +x "$root/init"
(cd "$root" && find . | "${cpio[@]}" -o -H newc 2>/dev/null) | gzip -1 >"$dir/initramfs.gz"

case $arch in
x86)
	# Two packages of two cores, one core per node; node 3 is small so a
	# strict binding can exhaust it.  SLIT: 16 inside a package, 22 across.
	mem=(-m 1280M -smp 4,sockets=2,cores=2,threads=1)
	sizes=(512M 384M 320M 64M)
	for n in 0 1 2 3; do
		mem+=(-object "memory-backend-ram,id=m$n,size=${sizes[$n]}"
		      -numa "node,nodeid=$n,cpus=$n,memdev=m$n")
	done
	for a in 0 1 2 3; do for b in 0 1 2 3; do
		[ "$a" -lt "$b" ] || continue
		d=22; [ $((a / 2)) -eq $((b / 2)) ] && d=16
		mem+=(-numa "dist,src=$a,dst=$b,val=$d")
	done; done
	machine=(-accel tcg,thread=multi -cpu max "${mem[@]}")
	console=ttyS0 ;;
arm64)
	machine=(-M virt -accel tcg,thread=multi -cpu max,pmu=on -m 512M -smp 2)
	console=ttyAMA0 ;;
esac
mkdir -p "$out"
rc=0
timeout "$TIMEOUT" "$qemu" "${machine[@]}" -kernel "$dir/vmlinuz" -initrd "$dir/initramfs.gz" \
	-append "console=$console loglevel=1 panic=-1" \
	-display none -serial stdio -monitor none -nodefaults -no-reboot </dev/null |
	tr -d '\r' >"$out/console.log" || rc=$?
[ "$rc" -eq 0 ] || { echo "vm.sh: $qemu exited $rc (timeout ${TIMEOUT}s?); see $out/console.log" >&2; exit 1; }
grep -q '^@@guest-end' "$out/console.log" ||
	{ echo "vm.sh: the guest did not finish its script; see $out/console.log" >&2; exit 1; }
# The guest's files: "@@file NAME", its lines, "@@end".
awk -v dir="$out" '
	/^@@file / { f = dir "/" $2; printf "" >f; next }
	/^@@end$/ { close(f); f = ""; next }
	f != "" { print >>f }' "$out/console.log"
