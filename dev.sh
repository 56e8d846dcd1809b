#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# dev.sh - install what is missing, build, and run the demonstration or the tests.
#
#   ./dev.sh demo    the main job: the kernel's own scan beside scsi-scan's
#   ./dev.sh bench   every benchmark, printed as a table (also bench/run)
#   ./dev.sh package the Debian package (dpkg-buildpackage -us -uc -b) from
#                    the tree's files, checked with lintian, in PKG_DIR
#                    (default ./build-deb)
#   ./dev.sh test    every test suite (unit, quirks, vm) and, beside them
#                    (niced), the unit suites again under AddressSanitizer
#                    and UBSan, then every fuzzer for FUZZ_SECONDS (default
#                    45) each
#
# Builds in ./build (override with BUILD_DIR). Installs Debian packages with
# apt-get when run as root (or through sudo), and says which ones otherwise.
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
build=${BUILD_DIR:-$top/build}

# Debian packages the build and tests need.
packages=(meson ninja-build gcc pkg-config python3 libconfuse-dev libjson-c-dev
	  libsgutils2-dev libudev-dev check valgrind
	  qemu-system-x86 busybox-static cpio kmod xz-utils sg3-utils udev strace
	  initramfs-tools dracut-core e2fsprogs btrfs-progs util-linux systemd libsystemd-dev
	  clang-14 clang-format-14 libclang-rt-14-dev libfuzzer-14-dev dmsetup open-iscsi lsscsi
	  multipath-tools iproute2 dracut-network
	  tgt)
# And for ./dev.sh package (and the installed-system test, which boots it).
pkg_packages=(debhelper dpkg-dev fakeroot lintian bash-completion mmdebstrap)

need_packages() {
	local missing=() p
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
			missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	echo "dev.sh: installing ${missing[*]}" >&2
	local sudo=()
	if [ "$(id -u)" -ne 0 ]; then
		if command -v sudo >/dev/null; then
			sudo=(sudo)
		else
			echo "dev.sh: run as root: apt-get install ${missing[*]}" >&2
			exit 1
		fi
	fi
	"${sudo[@]}" apt-get update -qq
	DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq "${missing[@]}" >/dev/null
}

configure() {
	local opts=(--prefix=/usr)
	# CI builds with warnings as errors; people get warnings.
	[ "${CI:-}" = true ] && opts+=(-Dwerror=true)
	if [ -f "$build/build.ninja" ]; then
		meson setup --reconfigure "${opts[@]}" "$build" "$top" >/dev/null
	else
		meson setup "${opts[@]}" "$build" "$top" >/dev/null
	fi
	ninja -C "$build" >/dev/null
}

demo() {
	local q=("$build/scsi-quirks" --quirks-dir "$top/quirks.d")

	echo "== The shipped quirk database, checked as a maintainer would"
	"$build/scsi-quirks" check "$top/quirks.d"
	echo
	echo "== What it says about a SCSI-2 CD-ROM that locks up when LUNs other than 0 are probed"
	"${q[@]}" query --vendor CHINON --model "CD-ROM CDS-431"
	echo
	echo "== Linux ${DEMO_KERNEL:-6.12} booted with scsi_mod.scan=manual under QEMU: each device"
	echo "   sits on two hosts; the kernel scans one itself, scsi-scan the other"
	python3 "$top/tests/vm/test-scan.py" --demo "$build" "${DEMO_KERNEL:-6.12}"
}

# Counts the results of a meson test log into the totals.
count_results() {
	python3 - "$1" <<-'EOF'
	import json, sys
	p = f = s = 0
	for line in open(sys.argv[1]):
	    r = json.loads(line)["result"]
	    if r in ("OK", "EXPECTEDFAIL"):
	        p += 1
	    elif r == "SKIP":
	        s += 1
	    else:
	        f += 1
	print(p, f, s)
	EOF
}

# The unit suites under AddressSanitizer and UBSan in $top/build-fuzz, then
# every fuzzer for FUZZ_SECONDS (default 45) each; prints "passed failed
# skipped" last. Slow on a busy machine: the suites' timeouts are tripled.
sanitizers() {
	local rc=0 p f s fuzz="$top/build-fuzz"
	# shellcheck disable=SC2054 # commas belong to b_sanitize
	local opts=(-Dfuzz=true -Db_sanitize=address,undefined -Db_lundef=false --prefix=/usr)
	[ "${CI:-}" = true ] && opts+=(-Dwerror=true)
	if [ -f "$fuzz/build.ninja" ]; then
		CC=clang-14 meson setup --reconfigure "${opts[@]}" "$fuzz" "$top" >/dev/null
	else
		CC=clang-14 meson setup "${opts[@]}" "$fuzz" "$top" >/dev/null
	fi
	ninja -C "$fuzz" >/dev/null
	# The removal model's worlds are the main build's to count in thousands.
	REMOVAL_MODEL_WORLDS=${REMOVAL_MODEL_WORLDS:-200} REMOVAL_MODEL_DETACHES=10 \
		meson test -C "$fuzz" --print-errorlogs --timeout-multiplier 3 --suite unit \
		--suite quirks || rc=1
	read -r p f s < <(count_results "$fuzz/meson-logs/testlog.json")
	if "$top/fuzz/run.sh" "$fuzz" "${FUZZ_SECONDS:-45}" | tee "$fuzz/fuzz.txt"; then :; else rc=1; fi
	p=$((p + $(grep -c ' ok$' "$fuzz/fuzz.txt" || true)))
	f=$((f + $(grep -c ' FAIL$' "$fuzz/fuzz.txt" || true)))
	echo "$p $f $s"
	return $rc
}

test_all() {
	local rc=0 p f s tp=0 tf=0 ts=0 san_pid='' san_log="$build/sanitizers.log"

	if [ $# -eq 0 ]; then
		# Beside the VM suites, at the lowest CPU and I/O priority: their
		# guests leave a core idle for part of the time, which the
		# sanitizer builds and the fuzzers take instead of four minutes of
		# their own after them.
		nice -n 19 ionice -c 3 bash -c "$(declare -f count_results sanitizers); top=$(printf %q "$top");
			CI=${CI:-}; sanitizers" >"$san_log" 2>&1 &
		san_pid=$!
	fi
	meson test -C "$build" --print-errorlogs "$@" || rc=$?
	# The model's seed, for a failure to be replayed (REMOVAL_MODEL_SEED).
	grep -h "^removal model: seed .* worlds (" "$build/meson-logs/testlog.txt" || true
	read -r p f s < <(count_results "$build/meson-logs/testlog.json")
	tp=$((tp + p)) tf=$((tf + f)) ts=$((ts + s))
	if [ -n "$san_pid" ]; then
		wait "$san_pid" || rc=1
		echo "== The unit suites under AddressSanitizer and UBSan, then the fuzzers (run beside the above)"
		sed '$d' "$san_log"
		if tail -1 "$san_log" | grep -qE '^[0-9]+ [0-9]+ [0-9]+$'; then
			read -r p f s < <(tail -1 "$san_log")
		else
			tail -1 "$san_log"
			p=0 f=1 s=0
		fi
		tp=$((tp + p)) tf=$((tf + f)) ts=$((ts + s))
	fi
	echo "$tp passed, $tf failed, $ts skipped"
	return $rc
}

bench() {
	echo "== Quirk database: load and lookup against a linear list as the kernel keeps it"
	ninja -C "$build" bench/bench-quirks >/dev/null
	"$build/bench/bench-quirks" "$top/quirks.d"
	echo
	echo "== CPU instructions of a scan (callgrind, fake kernel: 1 LUN, text and compiled"
	echo "   database; 1024 LUNs)"
	"$top/bench/callgrind-scan.sh" "$build" "$top/quirks.d"
	echo
	echo "== How that grows: one target of 256 to 16,384 LUNs, 1 to 64 hosts of 256 LUNs"
	"$top/bench/callgrind-growth.sh" "$build" "$top/quirks.d" --svg "$build/bench/growth.svg"
	echo
	echo "== The daemon's memory with 16,384 LUNs attached (fake kernel)"
	"$top/bench/daemon-rss.sh" "$build" "$top/quirks.d" 16384
	echo
	echo "== On the real kernel (QEMU TCG, 2 vCPUs), ratios against the kernel's own scan"
	# scsi-scan linked statically as well, for the small scans' rows
	local static=$build-static
	[ -f "$static/build.ninja" ] ||
		meson setup --prefix=/usr -Dstatic_scan=true -Dtests=disabled "$static" "$top" >/dev/null
	ninja -C "$static" scsi-scan >/dev/null
	python3 "$top/bench/vm-bench.py" "$build" "${BENCH_KERNEL:-6.12}" --rounds "${BENCH_ROUNDS:-5}" \
		--static-build "$static"
	echo
	echo "== iSCSI target discovery (LIO and open-iscsi in the guest) against the kernel's"
	python3 "$top/bench/vm-bench-iscsi.py" "$build" "${BENCH_KERNEL:-6.12}" --rounds "${BENCH_ROUNDS:-7}"
	echo
	# The scale benchmarks count guest instructions (BENCHMARKS.md, "Guest
	# time"); BENCH_ICOUNT= (empty) times them on the host's clock instead.
	local icount=()
	[ -n "${BENCH_ICOUNT-3}" ] && icount=(--icount "${BENCH_ICOUNT-3}")
	echo "== LUN masking at boot: the root LUN of 2,048 (policy) against the kernel's scan of all"
	python3 "$top/bench/vm-bench-lunmask.py" "$build" "${BENCH_KERNEL:-6.12}" --rounds "${BENCH_ROUNDS:-3}" "${icount[@]}"
	echo
	echo "== One target of 256, 1,024 and 4,096 LUNs: the kernel's scan against scsi-scan, same boot"
	python3 "$top/bench/vm-bench-growth.py" "$build" "${BENCH_KERNEL:-6.12}" --rounds "${BENCH_ROUNDS:-3}" "${icount[@]}"
	echo
	echo "== A restricted target: 2,048 LUNs, one refused by the policy, against the kernel's - - -"
	python3 "$top/bench/vm-bench-restricted.py" "$build" "${BENCH_KERNEL:-6.12}" --rounds "${BENCH_ROUNDS:-4}" "${icount[@]}"
	echo
	echo "== Hotplug of a host of 512 and 2,048 LUNs: scsi-scand against the kernel's scan in add_host"
	python3 "$top/bench/vm-bench-hotplug.py" "$build" "${BENCH_KERNEL:-6.12}" --rounds "${BENCH_ROUNDS:-7}" "${icount[@]}"
	echo
	echo "== The daemon's memory through 10,000 events (real kernel)"
	python3 "$top/bench/vm-bench-events.py" "$build" "${BENCH_KERNEL:-6.12}"
	echo
	echo "== Root on iSCSI, a target of 256 LUNs: the boot policy against the kernel's scan (scan=sync)"
	python3 "$top/bench/vm-bench-iscsi-root.py" "$build" "${BENCH_KERNEL:-6.12}" --rounds "${BENCH_ROUNDS:-3}"
	echo
	echo "== The same through dracut (iscsid): the boot policy against iscsid's scan (scan=sync)"
	python3 "$top/bench/vm-bench-iscsi-root.py" "$build" "${BENCH_KERNEL:-6.12}" --rounds "${BENCH_ROUNDS:-3}" --dracut
	echo
	echo "== A volume on two paths with multipathd: attach and detach against os-brick's steps"
	python3 "$top/bench/vm-bench-volume.py" "$build" "${BENCH_KERNEL:-6.12}" --rounds "${BENCH_ROUNDS:-5}"
}

# The .deb from the files git knows (committed or not, never build
# outputs), built in a copy so the tree stays clean.
package() {
	local out=${PKG_DIR:-$top/build-deb} version src
	version=$(cd "$top" && dpkg-parsechangelog -S Version)
	rm -rf "$out"
	src=$out/scsi-scan-$version
	mkdir -p "$src"
	(cd "$top" && git ls-files -co --exclude-standard -z | tar --null -cf - -T -) |
		tar -C "$src" -xf -
	(cd "$src" && dpkg-buildpackage -us -uc -b >"$out/build.log" 2>&1) || {
		tail -n 40 "$out/build.log" >&2
		echo "dev.sh: dpkg-buildpackage failed; see $out/build.log" >&2
		return 1
	}
	lintian --fail-on error,warning "$out"/*.changes
	ls "$out"/*.deb
}

case "${1:-}" in
package)
	need_packages "${packages[@]}" "${pkg_packages[@]}"
	package
	;;
bench)
	need_packages "${packages[@]}"
	configure
	bench
	;;
demo)
	need_packages "${packages[@]}"
	configure
	demo
	;;
test)
	shift
	need_packages "${packages[@]}" "${pkg_packages[@]}"
	configure
	test_all "$@"
	;;
*)
	echo "usage: $0 demo|test|bench|package [meson test options]" >&2
	exit 2
	;;
esac
