#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The initramfs-tools and dracut files: installed where the tools look, valid
# shell, and the hooks copy what the boot needs.
set -eu
src=$1 dest=$2
fail=0
check() { if ! "$@"; then echo "FAIL: $*"; fail=1; fi; }

for f in usr/share/initramfs-tools/hooks/scsi-scan \
	 usr/share/initramfs-tools/scripts/init-premount/scsi-scan \
	 usr/share/initramfs-tools/scripts/local-block/scsi-scan \
	 usr/lib/dracut/modules.d/95scsi-scan/module-setup.sh \
	 usr/lib/dracut/modules.d/95scsi-scan/scsi-scan-settled.sh \
	 usr/lib/dracut/modules.d/95scsi-scan/scsi-scan-cmdline.sh \
	 usr/lib/scsi-scan/iscsistart; do
	check test -x "$dest/$f"
done
check test -f "$dest/usr/lib/scsi-scan/boot-policy.sh"
for f in "$src"/initramfs-tools/hooks/scsi-scan "$src"/initramfs-tools/scripts/*/scsi-scan \
	 "$src"/dracut/95scsi-scan/scsi-scan-settled.sh "$src"/dracut/95scsi-scan/scsi-scan-cmdline.sh \
	 "$src"/initramfs-tools/iscsistart "$src"/boot/boot-policy.sh; do
	check sh -n "$f"
done
check bash -n "$src"/dracut/95scsi-scan/module-setup.sh
if command -v shellcheck >/dev/null; then
	check shellcheck -s sh "$src"/initramfs-tools/hooks/scsi-scan \
		"$src"/initramfs-tools/scripts/*/scsi-scan "$src"/dracut/95scsi-scan/scsi-scan-settled.sh \
		"$src"/dracut/95scsi-scan/scsi-scan-cmdline.sh "$src"/initramfs-tools/iscsistart \
		"$src"/boot/boot-policy.sh
	check shellcheck -s bash "$src"/dracut/95scsi-scan/module-setup.sh
fi
# dracut: the module installs the binary, the quirk directories and the hook
m=$src/dracut/95scsi-scan/module-setup.sh
check grep -q 'inst_binary "@bindir@/scsi-scan" /usr/bin/scsi-scan' "$m"
check grep -q '@shipped_quirks_dir@' "$m"
# installed, the templates name where this build put the binary and quirks
bindir=$(cd "$dest" && dirname "$(find . -path '*/bin/scsi-scan' | head -n 1)" | sed 's|^\.||')
mi=$dest/usr/lib/dracut/modules.d/95scsi-scan/module-setup.sh
hi=$dest/usr/share/initramfs-tools/hooks/scsi-scan
check grep -q "inst_binary \"$bindir/scsi-scan\" /usr/bin/scsi-scan" "$mi"
check grep -q "copy_exec \"\$root$bindir/scsi-scan\" /usr/bin/scsi-scan" "$hi"
if grep -q '@[a-z_]*@' "$mi" "$hi"; then echo "FAIL: placeholders left in $mi $hi"; fail=1; fi
check grep -q 'inst_hook initqueue/settled' "$m"
check grep -q 'inst_hook cmdline 30 "$moddir/scsi-scan-cmdline.sh"' "$m"
check grep -q 'inst_simple "@pkglibdir@/boot-policy.sh" /usr/lib/scsi-scan/boot-policy.sh' "$m"
# both masks' spellings reach the boot's policy
for f in "$src"/initramfs-tools/scripts/init-premount/scsi-scan \
	 "$src"/dracut/95scsi-scan/scsi-scan-settled.sh "$src"/dracut/95scsi-scan/scsi-scan-cmdline.sh; do
	check grep -q 'rd.lunmask=' "$f"
	check grep -q 'scsi_scan.lunmask=' "$f"
done
check grep -q 'instmods sg' "$m"
# the boot scripts run on klibc's tools when the initramfs has no busybox
# (Debian's default without the busybox package): no grep, rm, tail, sed
for f in "$src"/initramfs-tools/scripts/*/scsi-scan "$src"/dracut/95scsi-scan/scsi-scan-settled.sh \
	 "$src"/dracut/95scsi-scan/scsi-scan-cmdline.sh "$src"/initramfs-tools/iscsistart \
	 "$src"/boot/boot-policy.sh; do
	if sed 's/#.*//' "$f" | grep -Eq '(^|[|;&(]|\$\()[[:space:]]*(grep|rm|tail|head|sed|awk|tr)[[:space:]]'; then
		echo "FAIL: $f calls a tool the initramfs may lack"; fail=1
	fi
done
# the boot scripts stay out of the way unless the kernel scans manually
for f in "$src"/initramfs-tools/scripts/*/scsi-scan "$src"/dracut/95scsi-scan/scsi-scan-settled.sh; do
	check grep -q '/sys/module/scsi_mod/parameters/scan' "$f"
done
# the hook with a fake hook-functions: copy_exec and the quirk files
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/hf" "$tmp/dest"
cat > "$tmp/hook-functions" <<'EOS'
copy_exec() { mkdir -p "$DESTDIR$(dirname "$2")"; cp "$1" "$DESTDIR$2"; echo "copy_exec $1 $2" >> "$LOG"; }
manual_add_modules() { echo "module $*" >> "$LOG"; }
EOS
sed "s|/usr/share/initramfs-tools/hook-functions|$tmp/hook-functions|" "$hi" > "$tmp/hook"
DESTDIR=$tmp/dest LOG=$tmp/log SCSI_SCAN_ROOT=$dest sh "$tmp/hook"
check grep -q "copy_exec $dest/usr/bin/scsi-scan /usr/bin/scsi-scan" "$tmp/log"
check grep -q "copy_exec $dest/usr/bin/scsi-quirks /usr/bin/scsi-quirks" "$tmp/log"
check grep -q 'inst_binary "@bindir@/scsi-quirks" /usr/bin/scsi-quirks' "$m"
check grep -q "module sg" "$tmp/log"
check test -f "$tmp/dest/usr/lib/scsi-scan/quirks.d/10-linux-nolun.conf"
check cmp -s "$src/boot/boot-policy.sh" "$tmp/dest/usr/lib/scsi-scan/boot-policy.sh"
# and the compiled database of those copies, with the paths they have at boot
check grep -q "/usr/lib/scsi-scan/quirks.d/10-linux-nolun.conf" "$tmp/dest/etc/scsi-scan/quirks.bin"
if grep -q "$tmp" "$tmp/dest/etc/scsi-scan/quirks.bin"; then
	echo "FAIL: the initramfs image records the staging directory"; fail=1
fi
# the database's device flags for this machine's devices, as scsi_mod reads
# them in the initramfs: the MSA1000 example of scsi-quirks.d(5) (its value
# whole, sparselun kept); a selection that does not fit fails the image
mkdir -p "$tmp/sys/sys/bus/scsi/devices/0:0:0:0" "$tmp/sys/sys/bus/scsi/devices/0:0:1:0"
printf 'COMPAQ  \n' > "$tmp/sys/sys/bus/scsi/devices/0:0:0:0/vendor"
printf 'MSA1000         \n' > "$tmp/sys/sys/bus/scsi/devices/0:0:0:0/model"
printf 'ACME    \n' > "$tmp/sys/sys/bus/scsi/devices/0:0:1:0/vendor"
printf 'Ctl 2           \n' > "$tmp/sys/sys/bus/scsi/devices/0:0:1:0/model"
mkdir -p "$dest/etc/scsi-scan/quirks.d"
printf 'device "msa" {\n\tvendor = "COMPAQ"\n\tmodel = "MSA1000"\n\tdrop_flags = {"nostartonadd"}\n}\ndevice "mgmt" {\n\tvendor = "ACME"\n\tmodel = "Ctl*"\n\tflags = {"no_uld_attach"}\n}\n' \
	> "$dest/etc/scsi-scan/quirks.d/50-local.conf"
rm -rf "$tmp/dest" && mkdir -p "$tmp/dest"
DESTDIR=$tmp/dest LOG=$tmp/log SCSI_SCAN_ROOT=$dest SCSI_SCAN_SYSROOT=$tmp/sys sh "$tmp/hook" ||
	{ echo "FAIL: the hook failed"; fail=1; }
check grep -qx 'options scsi_mod dev_flags="COMPAQ:MSA1000:0x40,ACME:Ctl 2:0x100000"' \
	"$tmp/dest/etc/modprobe.d/scsi-scan-dev-flags.conf"
for n in $(seq 10 29); do
	mkdir -p "$tmp/sys/sys/bus/scsi/devices/0:0:$n:0"
	printf 'ACME    \n' > "$tmp/sys/sys/bus/scsi/devices/0:0:$n:0/vendor"
	printf 'Ctl number %02d   \n' "$n" > "$tmp/sys/sys/bus/scsi/devices/0:0:$n:0/model"
done
rm -rf "$tmp/dest" && mkdir -p "$tmp/dest"
if DESTDIR=$tmp/dest LOG=$tmp/log SCSI_SCAN_ROOT=$dest SCSI_SCAN_SYSROOT=$tmp/sys sh "$tmp/hook" \
	2> "$tmp/hook.err"; then
	echo "FAIL: the hook made an image whose device flags do not fit"; fail=1
fi
check grep -q "does not fit" "$tmp/hook.err"
check grep -q "E: scsi-scan: the quirk database's device flags cannot reach scsi_mod" "$tmp/hook.err"
rm -f "$dest/etc/scsi-scan/quirks.d/50-local.conf"
# the boot policy of a host-only image: the root's SCSI disk by its address
# (scsi-quirks boot-policy on the machine's sysfs), in an image made with
# MODULES=dep or BOOT_POLICY=yes, not otherwise; a root on no SCSI disk
# makes none
bp=$tmp/sysbp
mkdir -p "$bp/sys/class/scsi_host/host0" "$bp/sys/class/block" "$bp/proc/self" \
	"$bp/sys/bus/scsi/devices/0:0:1:0/block/sda/sda2"
echo virtio_scsi > "$bp/sys/class/scsi_host/host0/proc_name"
printf 'QEMU    \n' > "$bp/sys/bus/scsi/devices/0:0:1:0/vendor"
printf 'QEMU HARDDISK   \n' > "$bp/sys/bus/scsi/devices/0:0:1:0/model"
echo 8:0 > "$bp/sys/bus/scsi/devices/0:0:1:0/block/sda/dev"
echo 8:2 > "$bp/sys/bus/scsi/devices/0:0:1:0/block/sda/sda2/dev"
echo 2 > "$bp/sys/bus/scsi/devices/0:0:1:0/block/sda/sda2/partition"
ln -s "$bp/sys/bus/scsi/devices/0:0:1:0/block/sda" "$bp/sys/class/block/sda"
ln -s "$bp/sys/bus/scsi/devices/0:0:1:0/block/sda/sda2" "$bp/sys/class/block/sda2"
echo "22 1 8:2 / / rw - ext4 /dev/sda2 rw" > "$bp/proc/self/mountinfo"
for how in "MODULES=dep" "MODULES=most" "MODULES=dep SCSI_SCAN_BOOT_POLICY=no" \
	   "MODULES=most SCSI_SCAN_BOOT_POLICY=yes" "MODULES=dep conf=no"; do
	rm -rf "$tmp/dest" && mkdir -p "$tmp/dest"
	rm -f "$dest/etc/scsi-scan/initramfs.conf"
	case "$how" in *conf=no) echo "BOOT_POLICY=no" > "$dest/etc/scsi-scan/initramfs.conf" ;; esac
	env ${how%conf=no} DESTDIR=$tmp/dest LOG=$tmp/log SCSI_SCAN_ROOT=$dest \
		SCSI_SCAN_SYSROOT=$bp sh "$tmp/hook" || { echo "FAIL: the hook failed ($how)"; fail=1; }
	case "$how" in
	"MODULES=dep" | *=yes)
		check grep -q 'driver = "virtio_scsi"' "$tmp/dest/etc/scsi-scan/boot-policy.conf"
		check grep -q 'id = 1' "$tmp/dest/etc/scsi-scan/boot-policy.conf"
		check grep -q 'root file system: nothing else' "$tmp/dest/etc/scsi-scan/boot-policy.conf"
		;;
	*) check test ! -e "$tmp/dest/etc/scsi-scan/boot-policy.conf" ;;
	esac
done
rm -f "$dest/etc/scsi-scan/initramfs.conf"
echo "22 1 253:0 / / rw - ext4 /dev/vda rw" > "$bp/proc/self/mountinfo"
mkdir -p "$bp/sys/class/block/vda" && echo 253:0 > "$bp/sys/class/block/vda/dev"
rm -rf "$tmp/dest" && mkdir -p "$tmp/dest"
MODULES=dep DESTDIR=$tmp/dest LOG=$tmp/log SCSI_SCAN_ROOT=$dest SCSI_SCAN_SYSROOT=$bp \
	sh "$tmp/hook" 2> "$tmp/hook.err" || { echo "FAIL: the hook failed (vda)"; fail=1; }
check test ! -e "$tmp/dest/etc/scsi-scan/boot-policy.conf"
check grep -q "no boot policy: / lies on vda, no SCSI disk" "$tmp/hook.err"
check grep -q 'scsi-quirks" boot-policy' "$m"
check grep -q 'hostonly' "$m"
# the boot scripts: a time limit from scsi_scan.timeout= (120 s without),
# and what scsi-scan gave up on reaches the console
mkdir -p "$tmp/bin"
echo manual > "$tmp/scanmode"
cat > "$tmp/bin/scsi-scan" <<'EOS'
#!/bin/sh
echo "args: $*" >> "$LOG"
echo "scsi-scan: 0:0:1: FAILED: stopped: the run reached its time limit" >&2
exit 1
EOS
printf '#!/bin/sh\nexit 0\n' > "$tmp/bin/modprobe"
# import --cmdline as scsi-quirks does it: text for a good value, an error
# naming the value for a bad one
cat > "$tmp/bin/scsi-quirks" <<'EOS'
#!/bin/sh
echo "scsi-quirks: $*" >> "$LOG"
case "$3" in
*lunmask=bad*) echo "scsi-quirks: scsi_scan.lunmask=bad: the transport is wrong" >&2; exit 1 ;;
esac
echo 'lunmask "kernel command line 1" { luns = { 0 } }'
EOS
chmod +x "$tmp/bin/scsi-scan" "$tmp/bin/modprobe" "$tmp/bin/scsi-quirks"
mkdir -p "$tmp/run"
cat > "$tmp/functions" <<'EOS'
log_begin_msg() { :; }
log_end_msg() { :; }
log_warning_msg() { echo "W: $*" >> "$LOG"; }
wait_for_udev() { :; }
EOS
fake_paths() {
	sed -e "s|/scripts/functions|$tmp/functions|" \
	    -e "s|/sys/module/scsi_mod/parameters/scan|$tmp/scanmode|" \
	    -e "s|/proc/cmdline|$tmp/cmdline|g" -e "s|/usr/bin/scsi-scan|$tmp/bin/scsi-scan|g" \
	    -e "s|/usr/bin/scsi-quirks|$tmp/bin/scsi-quirks|g" \
	    -e "s|/run/scsi-scan.log|$tmp/run.log|g" -e "s|/run/scsi-scan/|$tmp/run/|g" \
	    -e "s|/run/scsi-scan-lunmask.err|$tmp/run/err|g" -e "s|/run/scsi-scan\$|$tmp/run|g" \
	    -e "s|/run/scsi-scan-timeout.err|$tmp/run/timeout.err|g" \
	    -e "s|/etc/scsi-scan/boot-policy.conf|$tmp/image-boot-policy.conf|g" \
	    -e "s|/usr/lib/scsi-scan/boot-policy.sh|$tmp/boot-policy.sh|g" \
	    -e "s|/sys/class/|$tmp/sys/class/|g" "$1"
}
# what the boot scripts source, on the same paths
fake_paths "$src/boot/boot-policy.sh" > "$tmp/boot-policy.sh"
# scsi_scan.timeout= as scsi-scan takes it; anything else is the default
# with a word (the second audit: "30" quoted, "30s" and "-5" stopped every
# boot scan, and the root was not found)
for case in '7:7:0' '"30":30:0' '007:7:0' '0:0:0' '86400:86400:0' '86401:120:1' \
	    '30s:120:1' '-5:120:1' ':120:1' '"":120:1' '1234567:120:1'; do
	value=${case%%:*} rest=${case#*:}
	if got=$(. "$tmp/boot-policy.sh" && scsi_scan_limit_of "$value" 2>"$tmp/err"); then
		got="$got:0"
	else
		got="$got:$?"
	fi
	[ "$got" = "$rest" ] ||
		{ echo "FAIL: scsi_scan_limit_of '$value' gave '$got', want '$rest'"; fail=1; }
	[ "${rest#*:}" = 0 ] || check grep -q "scsi_scan.timeout=$value is not 0-86400" "$tmp/err"
done
for script in init-premount local-block; do
	for cmdline in "root=/dev/sda1 scsi_scan.timeout=7 quiet" "root=/dev/sda1" \
		       'root=/dev/sda1 scsi_scan.timeout="7"' "root=/dev/sda1 scsi_scan.timeout=30s"; do
		: > "$tmp/log"
		echo "$cmdline" > "$tmp/cmdline"
		fake_paths "$src/initramfs-tools/scripts/$script/scsi-scan" > "$tmp/script"
		quiet=n PATH="$tmp/bin:$PATH" LOG=$tmp/log sh "$tmp/script" ||
			{ echo "FAIL: $script exits non-zero"; fail=1; }
		want=120
		case "$cmdline" in *timeout=7* | *'timeout="7"'*) want=7 ;; esac
		case "$cmdline" in
		*timeout=30s*)
			[ $script = local-block ] ||
				check grep -q "W: scsi-scan: scsi_scan.timeout=30s is not 0-86400" \
					"$tmp/log"
			;;
		esac
		check grep -q -- "args: --wait --time-limit $want" "$tmp/log"
		if [ $script = init-premount ]; then
			check grep -q "W: scsi-scan: 0:0:1: FAILED" "$tmp/log"
			check grep -q "W: scsi-scan: exit 1 (time limit $want s)" "$tmp/log"
		fi
	done
done
# A machine with no SCSI controller of its own (a root on iSCSI in a
# host-only image): scsi_mod is not loaded when init-premount runs, and its
# scan mode is there only once the script's modprobe of sg has loaded it
# with the image's modprobe.d; the boot's policy must still be put in place.
rm -f "$tmp/scanmode" "$tmp/run/boot-lunmask.conf"
cat > "$tmp/bin/modprobe" <<EOS
#!/bin/sh
[ "\$*" = "-q sg" ] && echo manual > "$tmp/scanmode"
exit 0
EOS
: > "$tmp/log"
echo "root=/dev/sda1 scsi_scan.lunmask=iscsi,iqn.2026-12.org.example:root,1" > "$tmp/cmdline"
fake_paths "$src/initramfs-tools/scripts/init-premount/scsi-scan" > "$tmp/script"
quiet=y PATH="$tmp/bin:$PATH" LOG=$tmp/log sh "$tmp/script" ||
	{ echo "FAIL: init-premount exits non-zero"; fail=1; }
check grep -q 'lunmask "kernel command line 1"' "$tmp/run/boot-lunmask.conf"
check grep -q -- "args: --wait --time-limit 120 --quirks-file $tmp/run/boot-lunmask.conf" "$tmp/log"
rm -f "$tmp/run/boot-lunmask.conf"
printf '#!/bin/sh\nexit 0\n' > "$tmp/bin/modprobe"
echo manual > "$tmp/scanmode"
: > "$tmp/log"
cat > "$tmp/settled" <<EOS
getarg() { echo 9; }
warn() { echo "W: \$*" >> "\$LOG"; }
. "$tmp/script"
echo "still running" >> "\$LOG"
EOS
fake_paths "$src/dracut/95scsi-scan/scsi-scan-settled.sh" > "$tmp/script"
PATH="$tmp/bin:$PATH" LOG=$tmp/log sh "$tmp/settled"
check grep -q -- "args: --wait --time-limit 9" "$tmp/log"
check grep -q "W: scsi-scan: exit 1 (time limit 9 s)" "$tmp/log"
# sourced by the initqueue: it must not exit
check grep -q "still running" "$tmp/log"
# scsi_scan.lunmask=: init-premount writes the boot's policy under /run and
# both scripts pass it; a value that does not parse is named on the console
# and the scan goes on without it
for cmdline in "root=/dev/sda1 scsi_scan.lunmask=scsi,virtio_scsi,0:1,0" \
	       "root=/dev/sda1 scsi_scan.lunmask=bad"; do
	rm -f "$tmp/run/boot-lunmask.conf"
	echo "$cmdline" > "$tmp/cmdline"
	for script in init-premount local-block; do
		: > "$tmp/log"
		fake_paths "$src/initramfs-tools/scripts/$script/scsi-scan" > "$tmp/script"
		quiet=y PATH="$tmp/bin:$PATH" LOG=$tmp/log sh "$tmp/script" ||
			{ echo "FAIL: $script exits non-zero"; fail=1; }
		case "$cmdline" in
		*=bad)
			check test ! -s "$tmp/run/boot-lunmask.conf"
			check grep -q -- "args: --wait --time-limit 120\$" "$tmp/log"
			[ $script = local-block ] ||
				check grep -q "W: scsi-quirks: scsi_scan.lunmask=bad: the transport" "$tmp/log"
			;;
		*)
			check grep -q 'lunmask "kernel command line 1"' "$tmp/run/boot-lunmask.conf"
			check grep -q -- "args: --wait --time-limit 120 --quirks-file $tmp/run/boot-lunmask.conf" \
				"$tmp/log"
			;;
		esac
	done
	: > "$tmp/log"
	rm -f "$tmp/run/boot-lunmask.conf" "$tmp/run/boot-lunmask.conf.error"
	fake_paths "$src/dracut/95scsi-scan/scsi-scan-settled.sh" > "$tmp/script"
	PATH="$tmp/bin:$PATH" LOG=$tmp/log sh "$tmp/settled"
	PATH="$tmp/bin:$PATH" LOG=$tmp/log sh "$tmp/settled"
	case "$cmdline" in
	*=bad)
		check test "$(grep -c 'W: scsi-quirks: scsi_scan.lunmask=bad' "$tmp/log")" = 1
		check test "$(grep -c 'scsi-quirks: import' "$tmp/log")" = 1
		;;
	*)
		check test "$(grep -c -- "--quirks-file $tmp/run/boot-lunmask.conf" "$tmp/log")" = 2
		check test "$(grep -c 'scsi-quirks: import' "$tmp/log")" = 1
		;;
	esac
done
# the image's boot policy: taken unless the command line names LUNs of its
# own or says scsi_scan.bootpolicy=0; dropped by local-block (and dracut's
# settled hook) when the root has not come 5 s after the first pass
echo 'lunmask "root file system 1" { luns = { 0 } }' > "$tmp/image-boot-policy.conf"
for cmdline in "root=/dev/sda1" "root=/dev/sda1 scsi_scan.bootpolicy=0" \
	       "root=/dev/sda1 scsi_scan.lunmask=scsi,virtio_scsi,0:1,0"; do
	rm -f "$tmp/run/boot-lunmask.conf" "$tmp/run/boot-policy.since" "$tmp/run/boot-policy.taken" \
		"$tmp/run/boot-policy.seen"
	: > "$tmp/log"
	echo "$cmdline" > "$tmp/cmdline"
	fake_paths "$src/initramfs-tools/scripts/init-premount/scsi-scan" > "$tmp/script"
	quiet=y PATH="$tmp/bin:$PATH" LOG=$tmp/log sh "$tmp/script"
	case "$cmdline" in
	*bootpolicy=0)
		check test ! -e "$tmp/run/boot-lunmask.conf"
		check grep -q -- "args: --wait --time-limit 120\$" "$tmp/log"
		;;
	*lunmask=*)
		check grep -q 'kernel command line 1' "$tmp/run/boot-lunmask.conf"
		check test ! -e "$tmp/run/boot-policy.taken"
		;;
	*)
		check grep -q 'root file system 1' "$tmp/run/boot-lunmask.conf"
		check grep -q -- "--quirks-file $tmp/run/boot-lunmask.conf" "$tmp/log"
		check test -e "$tmp/run/boot-policy.taken"
		# local-block: kept for 5 s from its first run, then every LUN
		fake_paths "$src/initramfs-tools/scripts/local-block/scsi-scan" > "$tmp/script"
		: > "$tmp/log"
		quiet=y PATH="$tmp/bin:$PATH" LOG=$tmp/log sh "$tmp/script"
		check grep -q -- "--quirks-file $tmp/run/boot-lunmask.conf" "$tmp/log"
		check test -s "$tmp/run/boot-policy.since"
		read -r up _ < /proc/uptime
		# a session logged in after 6 s: 5 s more from there
		echo $((${up%%.*} - 6)) > "$tmp/run/boot-policy.since"
		mkdir -p "$tmp/sys/class/iscsi_session/session1"
		: > "$tmp/log"
		quiet=y PATH="$tmp/bin:$PATH" LOG=$tmp/log sh "$tmp/script"
		check grep -q -- "--quirks-file $tmp/run/boot-lunmask.conf" "$tmp/log"
		check test "$(grep -c "root is on none" "$tmp/log")" = 0
		rmdir "$tmp/sys/class/iscsi_session/session1"
		: > "$tmp/log"
		quiet=y PATH="$tmp/bin:$PATH" LOG=$tmp/log sh "$tmp/script"
		check grep -q -- "--quirks-file $tmp/run/boot-lunmask.conf" "$tmp/log"
		echo $((${up%%.*} - 6)) > "$tmp/run/boot-policy.since"
		: > "$tmp/log"
		quiet=y PATH="$tmp/bin:$PATH" LOG=$tmp/log sh "$tmp/script"
		check grep -q -- "args: --wait --time-limit 120\$" "$tmp/log"
		check grep -q "W: scsi-scan: the root is on none of the LUNs of the image's boot policy" \
			"$tmp/log"
		check test ! -s "$tmp/run/boot-lunmask.conf"
		;;
	esac
done
rm -f "$tmp/run/boot-lunmask.conf" "$tmp/run/boot-policy.since" "$tmp/run/boot-policy.seen"
mkdir -p "$tmp/sys/class/scsi_host/host0"
: > "$tmp/log"
cat > "$tmp/settled" <<EOS
getarg() { case "\$1" in scsi_scan.timeout=) echo 9 ;; *) return 1 ;; esac; }
warn() { echo "W: \$*" >> "\$LOG"; }
. "$tmp/script"
EOS
fake_paths "$src/dracut/95scsi-scan/scsi-scan-settled.sh" > "$tmp/script"
PATH="$tmp/bin:$PATH" LOG=$tmp/log sh "$tmp/settled"
check grep -q 'root file system 1' "$tmp/run/boot-lunmask.conf"
check grep -q -- "--quirks-file $tmp/run/boot-lunmask.conf" "$tmp/log"
check test -s "$tmp/run/boot-policy.since"
read -r up _ < /proc/uptime
# an FC remote port found after 6 s: 5 s more from there
echo $((${up%%.*} - 6)) > "$tmp/run/boot-policy.since"
mkdir -p "$tmp/sys/class/fc_remote_ports/rport-0:0-0"
: > "$tmp/log"
PATH="$tmp/bin:$PATH" LOG=$tmp/log sh "$tmp/settled"
check grep -q -- "--quirks-file $tmp/run/boot-lunmask.conf" "$tmp/log"
check test "$(grep -c "root is on none" "$tmp/log")" = 0
echo $((${up%%.*} - 6)) > "$tmp/run/boot-policy.since"
: > "$tmp/log"
PATH="$tmp/bin:$PATH" LOG=$tmp/log sh "$tmp/settled"
check grep -q -- "args: --wait --time-limit 9\$" "$tmp/log"
check grep -q "W: scsi-scan: the root is on none of the LUNs" "$tmp/log"
# A policy naming an iSCSI target: no session 30 s after the first pass
# (DHCP and the login still under way) keeps it; 60 s drops it; a session
# found then counts 5 s from there.
printf 'lunmask "root file system 1" {\n\tiscsi_target = "iqn.t"\n\tluns = { "1" }\n}\n' \
	> "$tmp/image-boot-policy.conf"
for case in 30:none:kept 60:none:dropped 30:session:kept-then-dropped; do
	rm -f "$tmp/run/boot-lunmask.conf" "$tmp/run/boot-policy.since" "$tmp/run/boot-policy.seen"
	rm -rf "$tmp/sys/class/iscsi_session"
	# the hook repeats the scan log's lines on the console: this case's only
	: > "$tmp/run.log"
	PATH="$tmp/bin:$PATH" LOG=$tmp/log sh "$tmp/settled"
	read -r up _ < /proc/uptime
	echo $((${up%%.*} - ${case%%:*})) > "$tmp/run/boot-policy.since"
	case "$case" in *:session:*) mkdir -p "$tmp/sys/class/iscsi_session/session1" ;; esac
	: > "$tmp/log"
	PATH="$tmp/bin:$PATH" LOG=$tmp/log sh "$tmp/settled"
	case "$case" in
	*:dropped) check grep -q "W: scsi-scan: the root is on none of the LUNs" "$tmp/log" ;;
	*)
		check test "$(grep -c "root is on none" "$tmp/log")" = 0
		check grep -q 'iscsi_target' "$tmp/run/boot-lunmask.conf"
		;;
	esac
	case "$case" in
	*:kept-then-dropped)
		echo $((${up%%.*} - 6)) > "$tmp/run/boot-policy.since"
		: > "$tmp/log"
		PATH="$tmp/bin:$PATH" LOG=$tmp/log sh "$tmp/settled"
		check grep -q "W: scsi-scan: the root is on none of the LUNs" "$tmp/log"
		;;
	esac
done
rm -rf "$tmp/sys/class/iscsi_session"
# Root on iSCSI, initramfs-tools: the hook puts its iscsistart in place of
# open-iscsi's (whatever order the two hooks ran in), which it keeps beside
rm -rf "$tmp/dest"
mkdir -p "$tmp/dest/usr/sbin"
printf '#!/bin/sh\necho "open-iscsi iscsistart $*" >> "$LOG"\nexit 15\n' > "$tmp/dest/usr/sbin/iscsistart"
chmod +x "$tmp/dest/usr/sbin/iscsistart"
DESTDIR=$tmp/dest LOG=$tmp/log SCSI_SCAN_ROOT=$dest sh "$tmp/hook"
check cmp -s "$tmp/dest/usr/sbin/iscsistart" "$dest/usr/lib/scsi-scan/iscsistart"
check grep -q "open-iscsi iscsistart" "$tmp/dest/usr/lib/scsi-scan/iscsistart.open-iscsi"
check grep -qx 'PREREQ="iscsi"' "$hi"
# and its iscsistart: with scan=manual a login is made with
# node.session.scan=manual (iscsistart would write "- - -" itself) and
# scanned with the boot's policy, whatever the login's exit; the exit is
# iscsistart's. Anything else, and any other scan mode: iscsistart as it is.
fake_paths "$dest/usr/lib/scsi-scan/iscsistart" |
	sed "s|/usr/lib/scsi-scan/iscsistart.open-iscsi|$tmp/dest/usr/lib/scsi-scan/iscsistart.open-iscsi|" \
	> "$tmp/iscsistart"
echo "root=UUID=x scsi_scan.timeout=7" > "$tmp/cmdline"
echo 'lunmask "root file system 1" { luns = { 1 } }' > "$tmp/run/boot-lunmask.conf"
: > "$tmp/log"
rc=0
LOG=$tmp/log sh "$tmp/iscsistart" -i iqn.i -t iqn.t -g 1 -a 10.0.2.2 -p 3260 || rc=$?
check test $rc = 15
check grep -qx "open-iscsi iscsistart -P node.session.scan=manual -i iqn.i -t iqn.t -g 1 -a 10.0.2.2 -p 3260" "$tmp/log"
check grep -q -- "args: --wait --time-limit 7 --quirks-file $tmp/run/boot-lunmask.conf" "$tmp/log"
check grep -q "scanning after iscsistart -i iqn.i -t iqn.t" "$tmp/run.log"
: > "$tmp/log"
LOG=$tmp/log sh "$tmp/iscsistart" -f || :
check grep -qx "open-iscsi iscsistart -f" "$tmp/log"
check test "$(grep -c args: "$tmp/log")" = 0
echo sync > "$tmp/scanmode"
: > "$tmp/log"
LOG=$tmp/log sh "$tmp/iscsistart" -i iqn.i -t iqn.t -g 1 -a 10.0.2.2 || :
check grep -qx "open-iscsi iscsistart -i iqn.i -t iqn.t -g 1 -a 10.0.2.2" "$tmp/log"
check test "$(grep -c args: "$tmp/log")" = 0
echo manual > "$tmp/scanmode"
# Root on iSCSI, dracut (iscsiadm and iscsid): with a manual scan, the
# initramfs's iscsid.conf ends with node.session.scan = manual, which the
# discovery's records take; not otherwise
for mode in manual sync; do
	mkdir -p "$tmp/etc-iscsi"
	echo "node.session.scan = auto" > "$tmp/etc-iscsi/iscsid.conf"
	echo "$mode" > "$tmp/scanmode"
	cat > "$tmp/cmdline-hook" <<EOS
getarg() { return 1; }
. "$tmp/script"
EOS
	fake_paths "$src/dracut/95scsi-scan/scsi-scan-cmdline.sh" |
		sed "s|/etc/iscsi|$tmp/etc-iscsi|g" > "$tmp/script"
	sh "$tmp/cmdline-hook"
	if [ $mode = manual ]; then
		check test "$(tail -n 1 "$tmp/etc-iscsi/iscsid.conf")" = "node.session.scan = manual"
	else
		check test "$(tail -n 1 "$tmp/etc-iscsi/iscsid.conf")" = "node.session.scan = auto"
	fi
done
echo manual > "$tmp/scanmode"
[ $fail = 0 ] && echo "boot files: ok"
exit $fail
