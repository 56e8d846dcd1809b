# SPDX-License-Identifier: GPL-2.0-or-later
"""Boot a Debian kernel under QEMU with a busybox initramfs that carries the
installed project, and collect what the guest prints.

Kernels come from Debian's packages (apt-get download), cached outside the
tree in $SCSI_SCAN_VM_CACHE (default ~/.cache/scsi-scan-vm)."""

import fcntl
import glob
import lzma
import os
import random
import re
import shutil
import statistics
import stat
import sys
import subprocess
import tempfile
import time

CACHE = os.environ.get("SCSI_SCAN_VM_CACHE",
                       os.path.join(os.path.expanduser("~"), ".cache", "scsi-scan-vm"))

# The kernels of Debian 12: its default 6.1 and the 6.12 of bookworm.
KERNEL_PATTERNS = {
    "6.1": r"^linux-image-6\.1\.0-(\d+)-amd64-unsigned$",
    "6.12": r"^linux-image-6\.12\.(\d+)\+deb12-amd64-unsigned$",
}

BASE_MODULES = ["scsi_mod", "sd_mod", "sg", "scsi_debug"]
VIRTIO_MODULES = ["virtio_pci", "virtio_scsi"]
GUEST_TOOLS = ["sg_luns", "sg_turs", "sg_inq"]


class VMError(Exception):
    pass


def log(msg):
    print(f"[vm] {msg}", flush=True)


def _run(cmd, **kw):
    return subprocess.run(cmd, check=True, capture_output=True, text=True, **kw)


def kernel_package(series):
    """The newest Debian package name of a kernel series."""
    out = _run(["apt-cache", "search", "--names-only", "linux-image-"]).stdout
    best = None
    for line in out.splitlines():
        name = line.split(" ", 1)[0]
        m = re.match(KERNEL_PATTERNS[series], name)
        if m and (best is None or int(m.group(1)) > best[0]):
            best = (int(m.group(1)), name)
    if not best:
        raise VMError(f"no Debian package for kernel {series} (run apt-get update)")
    return best[1]


def prepare_kernel(series):
    """Downloads and unpacks the kernel; returns (vmlinuz, modules dir, release)."""
    pkg = kernel_package(series)
    root = os.path.join(CACHE, pkg)
    done = os.path.join(root, ".unpacked")
    if not os.path.exists(done):
        os.makedirs(CACHE, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=CACHE) as tmp:
            log(f"downloading {pkg}")
            subprocess.run(["apt-get", "download", "-q", pkg], cwd=tmp, check=True,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            deb = glob.glob(os.path.join(tmp, "*.deb"))[0]
            shutil.rmtree(root, ignore_errors=True)
            _run(["dpkg-deb", "-x", deb, root])
        open(done, "w").close()
    vmlinuz = glob.glob(os.path.join(root, "boot", "vmlinuz-*"))[0]
    moddir = glob.glob(os.path.join(root, "lib", "modules", "*"))[0]
    return vmlinuz, moddir, os.path.basename(moddir)


def module_order(moddir, wanted):
    """Module files in load order, dependencies first (modinfo, no modules.dep)."""
    paths = {}
    for p in glob.glob(os.path.join(moddir, "kernel", "**", "*.ko*"), recursive=True):
        name = os.path.basename(p).split(".ko")[0].replace("-", "_")
        paths[name] = p
    order, seen = [], set()

    def visit(name):
        name = name.replace("-", "_")
        if name in seen:
            return
        seen.add(name)
        if name not in paths:
            return  # built into the kernel
        deps = _run(["modinfo", "-F", "depends", paths[name]]).stdout.strip()
        for d in filter(None, deps.split(",")):
            visit(d)
        order.append((name, paths[name]))

    for w in wanted:
        visit(w)
    return order


def _copy_with_libs(binary, root, done):
    """Copies a dynamically linked program and every library it needs."""
    for f in [binary] + _libs(binary):
        dst = os.path.join(root, f.lstrip("/"))
        if dst in done or os.path.exists(dst):
            continue
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        shutil.copy2(f, dst)
        done.add(dst)


def _libs(binary):
    out = subprocess.run(["ldd", binary], capture_output=True, text=True).stdout
    libs = []
    for line in out.splitlines():
        m = re.search(r"(/\S+)", line.split("=>")[-1])
        if m and os.path.exists(m.group(1)):
            libs.append(m.group(1))
            real = os.path.realpath(m.group(1))
            if real != m.group(1):
                libs.append(real)
    return libs


def build_initramfs(out, staging, modules, init_script, extra_files=None, programs=(),
                    on_demand=()):
    """A newc cpio: busybox, the installed project (staging), its libraries,
    the modules (decompressed) and /init. @on_demand: (name, path) of
    modules the guest does not load, but the kernel's request_module() can
    (/bin/test-modprobe, which INIT_HEAD makes the kernel's modprobe)."""
    with tempfile.TemporaryDirectory() as root:
        for d in ["bin", "sbin", "dev", "proc", "sys", "run", "tmp", "etc", "lib/test-modules",
                  "usr/bin", "usr/sbin"]:
            os.makedirs(os.path.join(root, d), exist_ok=True)
        shutil.copy2("/bin/busybox", os.path.join(root, "bin", "busybox"))
        subprocess.run(["cp", "-a", staging + "/.", root], check=True)
        done = set()
        for prog in glob.glob(os.path.join(staging, "usr", "bin", "*")):
            for lib in _libs(prog):
                _copy_with_libs(lib, root, done)
        for prog in list(GUEST_TOOLS) + list(programs):
            path = shutil.which(prog) or prog
            if os.path.exists(path):
                _copy_with_libs(path, root, done)
        names = []
        for name, path in on_demand:
            dst = os.path.join(root, "lib", "test-modules", name + ".ko")
            if path.endswith(".xz"):
                with lzma.open(path) as src, open(dst, "wb") as f:
                    shutil.copyfileobj(src, f)
            else:
                shutil.copy2(path, dst)
        with open(os.path.join(root, "bin", "test-modprobe"), "w") as f:
            f.write(TEST_MODPROBE)
        os.chmod(os.path.join(root, "bin", "test-modprobe"), 0o755)
        for name, path in modules:
            dst = os.path.join(root, "lib", "test-modules", name + ".ko")
            if path.endswith(".xz"):
                with lzma.open(path) as src, open(dst, "wb") as f:
                    shutil.copyfileobj(src, f)
            else:
                shutil.copy2(path, dst)
            names.append(name)
        with open(os.path.join(root, "lib", "test-modules", "order"), "w") as f:
            f.write("\n".join(names) + "\n")
        for rel, text in (extra_files or {}).items():
            p = os.path.join(root, rel.lstrip("/"))
            os.makedirs(os.path.dirname(p), exist_ok=True)
            with open(p, "w") as f:
                f.write(text)
        if os.environ.get("SCSI_SCAN_CAPTURE"):
            init_script = init_script.replace("\n", "\nCAPTURE=1\n", 1)
        with open(os.path.join(root, "init"), "w") as f:
            f.write(init_script)
        os.chmod(os.path.join(root, "init"), 0o755)
        files = subprocess.run(["find", "."], cwd=root, capture_output=True, text=True,
                               check=True).stdout
        with open(out, "wb") as f:
            subprocess.run(["cpio", "-o", "-H", "newc", "--quiet"], cwd=root, input=files.encode(),
                           stdout=f, check=True)


# The kernel's request_module() in a guest: "modprobe -q -- NAME" loads
# /lib/test-modules/NAME.ko (build_initramfs(on_demand=...)).
TEST_MODPROBE = r"""#!/bin/busybox sh
for a; do case $a in -*) ;; *) m=$a ;; esac; done
m=$(echo "$m" | tr - _)
grep -q "^$m " /proc/modules && exit 0
[ -f /lib/test-modules/$m.ko ] && exec insmod /lib/test-modules/$m.ko
exit 1
"""

INIT_HEAD = r"""#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t tmpfs tmpfs /run
mount -t tmpfs tmpfs /tmp
echo 0 > /proc/sys/kernel/printk 2>/dev/null
echo /bin/test-modprobe > /proc/sys/kernel/modprobe
for m in $(cat /lib/test-modules/order); do
	case $m in
	scsi_mod) insmod /lib/test-modules/$m.ko scan=${SCSI_SCAN_MODE:-manual} ;;
	scsi_debug) ;;
	*) insmod /lib/test-modules/$m.ko ;;
	esac
done
# rmmod_wait MODULE: busybox rmmod does not wait; a module still held for a
# moment (sd finishing an asynchronous probe, a device just closed) fails
# with EAGAIN. Retry for up to 10 s, then say so for the test to fail on.
rmmod_wait() {
	n=0
	while ! rmmod $1 2>/dev/null; do
		n=$((n + 1))
		[ $n -ge 100 ] && { echo "@@UNLOAD-FAILED $1"; return 1; }
		sleep 0.1
	done
}
echo "@@BOOTED $(uname -r) scan=$(cat /sys/module/scsi_mod/parameters/scan)"
"""

INIT_TAIL = r"""
echo "@@DONE"
sync
poweroff -f
"""


# Shell functions for a guest: luns_of_host H, new_hosts "BEFORE", all_hosts,
# and compare NAME KERNEL_HOST OUR_HOST, which lets the kernel scan one host
# ("- - -") and scsi-scan the other, then prints one @@R line (COMPARE_RESULT).
COMPARE_LIB = r"""
luns_of_host() {
	for d in /sys/bus/scsi/devices/$1:*; do
		[ -e "$d" ] || continue
		b=${d##*/}
		echo "${b#*:}"
	done | sort -t: -k1,1n -k2,2n -k3,3n | tr '\n' ',' | sed 's/,$//'
}
new_hosts() {
	for h in /sys/class/scsi_host/host*; do
		n=${h##*/host}
		case " $1 " in *" $n "*) ;; *) echo $n ;; esac
	done | sort -n | tr '\n' ' '
}
all_hosts() {
	for h in /sys/class/scsi_host/host*; do [ -e "$h" ] && echo ${h##*/host}; done | tr '\n' ' '
}
uptime_cs() { read a b < /proc/uptime; echo ${a%.*}${a#*.}; }
compare() {
	name=$1; hk=$2; ho=$3
	t0=$(uptime_cs)
	echo "- - -" > /sys/class/scsi_host/host$hk/scan
	t1=$(uptime_cs)
	scsi-scan -v host$ho > /tmp/out.txt 2>&1; rc=$?
	t2=$(uptime_cs)
	k=$(luns_of_host $hk); o=$(luns_of_host $ho)
	kf=$(cat /sys/bus/scsi/devices/$hk:0:0:0/blacklist 2>/dev/null | tr ' ' '+')
	echo "@@R $name rc=$rc kernel=[$k] ours=[$o] kflags=[$kf] kcs=$((t1-t0)) ocs=$((t2-t1))"
	sed 's/^/@@L /' /tmp/out.txt | head -40
	if [ -n "$DEMO" ]; then
		for t in $(ls -d /sys/bus/scsi/devices/$ho:* 2>/dev/null | sed 's|.*/||; s|:[0-9]*$||' | sort -u); do
			scsi-scan explain $t 2>&1 | sed "s/^/@@E $name /"
		done
	fi
}
"""

# wait_luns HOST COUNT TIMEOUT_CS: until HOST has COUNT LUNs (count_luns HOST,
# defined by the guest's script); prints centiseconds or -1.
WAIT_LIB = r"""
wait_luns() {
	t0=$(uptime_cs)
	while [ $(( $(uptime_cs) - t0 )) -lt $3 ]; do
		[ "$(count_luns $1)" -ge $2 ] && { echo $(( $(uptime_cs) - t0 )); return; }
		sleep 0.05
	done
	echo -1
}
"""

# capture_tree NAME: with SCSI_SCAN_CAPTURE set when the test ran, the sysfs
# the programs read (hosts, devices and their attributes, transport
# classes) and each device's raw INQUIRY and REPORT LUNS answers (the
# fake kernel replays them), as a base64 tar.gz on @@TREE lines; else
# nothing. tests/golden/README.md says how the trees are used.
# udev's scsi_id beside the kernel's copies of VPD pages 0x80 and 0x83, for
# check_identities(): "@@V NAME H:C:T:L PAGE HEX" and "@@U NAME H:C:T:L
# KEY=VALUE", NAME telling apart calls between which host numbers are used
# again. LUNs 0-3 of each target: enough kinds without a scsi_id run per
# LUN of a 300-LUN target.
IDENTITY_LIB = r"""
identity_oracle() {
	for d in /sys/bus/scsi/devices/*:*:*:*; do
		[ -e "$d/type" ] || continue
		n=${d##*/}
		case "${n##*:}" in 0|1|2|3) ;; *) continue ;; esac
		sg=$(ls $d/scsi_generic 2>/dev/null | head -n 1)
		[ -n "$sg" ] || continue
		for p in vpd_pg80 vpd_pg83; do
			[ -r $d/$p ] && echo "@@V $1 $n $p $(od -An -v -tx1 $d/$p | tr -d ' \n')"
		done
		/lib/udev/scsi_id --whitelisted --export --device=/dev/$sg 2>/dev/null |
			sed "s/^/@@U $1 $n /"
	done
}
"""

CAPTURE_LIB = r"""
capture_tree() {
	[ -n "$CAPTURE" ] || return 0
	o=/tmp/tree-$1
	rm -rf $o
	mkdir -p $o/sys/bus/scsi/devices $o/sys/class/scsi_host $o/sys/module/scsi_mod/parameters \
		$o/dev/bsg $o/run $o/proc/self $o/.sgio
	for p in max_luns scan; do cat /sys/module/scsi_mod/parameters/$p > $o/sys/module/scsi_mod/parameters/$p; done
	: > $o/proc/self/mountinfo
	: > $o/proc/swaps
	for h in /sys/class/scsi_host/host*; do
		n=${h##*/}; mkdir -p $o/sys/class/scsi_host/$n
		cat $h/proc_name > $o/sys/class/scsi_host/$n/proc_name; : > $o/sys/class/scsi_host/$n/scan
		for c in iscsi_host fc_host sas_host; do
			[ -e /sys/class/$c/$n ] && mkdir -p $o/sys/class/$c/$n
		done
		[ -e /sys/class/fc_host/$n/port_name ] && cat /sys/class/fc_host/$n/port_name > $o/sys/class/fc_host/$n/port_name
	done
	for d in /sys/bus/scsi/devices/*:*:*:*; do
		[ -e "$d/type" ] || continue
		n=${d##*/}; od=$o/sys/bus/scsi/devices/$n; mkdir -p $od $o/.sgio/$n
		for a in vendor model rev type scsi_level state blacklist wwid inquiry vpd_pg80 vpd_pg83; do
			[ -r $d/$a ] && cat $d/$a > $od/$a 2>/dev/null
		done
		for sub in block scsi_generic bsg; do
			for x in $d/$sub/*; do [ -e "$x" ] && mkdir -p $od/$sub/${x##*/}; done
		done
		for x in $d/block/*; do [ -e "$x/size" ] && cat $x/size > $od/block/${x##*/}/size; done
		sg=$(ls $d/scsi_generic 2>/dev/null)
		[ -n "$sg" ] || continue
		: > $o/dev/$sg
		sg_inq -r -l 96 /dev/$sg > $o/.sgio/$n/inquiry 2>/dev/null || rm -f $o/.sgio/$n/inquiry
		sg_luns -r /dev/$sg > $o/.sgio/$n/report_luns 2>/dev/null || {
			rm -f $o/.sgio/$n/report_luns; : > $o/.sgio/$n/report_luns.fail; }
	done
	for s in /sys/class/iscsi_session/session*; do
		[ -e "$s" ] || continue
		n=${s##*/}; l=$(readlink $s); t=$o/sys/class/iscsi_session/$l
		mkdir -p $t $o/sys/class/iscsi_session; ln -s $l $o/sys/class/iscsi_session/$n
		for a in targetname tpgt state target_id; do [ -r $s/$a ] && cat $s/$a > $t/$a; done
		mkdir -p $t/device
		for x in $s/device/target*; do [ -e "$x" ] && mkdir -p $t/device/${x##*/}; done
	done
	for c in sas_device fc_remote_ports; do
		for x in /sys/class/$c/*; do
			[ -e "$x" ] || continue
			od=$o/sys/class/$c/${x##*/}; mkdir -p $od
			for a in scsi_target_id device_type sas_address port_name roles port_state; do
				[ -r $x/$a ] && cat $x/$a > $od/$a
			done
		done
	done
	tar -C $o -czf - . | base64 | sed "s/^/@@TREE $1 /"
}
"""


def _ws(text):
    """udev's whitespace rule (udev_replace_whitespace()): runs of blanks
    become one '_', none at either end."""
    return "_".join(text.split())


def _decode(decode_dump, kind, data):
    with tempfile.NamedTemporaryFile() as f:
        f.write(data)
        f.flush()
        out = subprocess.run([decode_dump, kind, f.name], capture_output=True, text=True,
                             check=True).stdout
    return [line.split("=", 1) for line in out.splitlines()[1:] if "=" in line]


def check_identities(out, decode_dump):
    """Holds our decoders of VPD 0x80 and 0x83 (decode-dump, run here on the
    guest's sysfs copies) against udev's scsi_id, which asked the same
    devices through SG_IO in the same boot. Where they overlap:
    - ID_SCSI_SERIAL (page 0x80) is our unit serial, blanks trimmed at both
      ends (scsi_id prints the field as the device sent it);
    - ID_SERIAL names the designator scsi_id chose by its priority (NAA
      first; ID_WWN_WITH_EXTENSION is its hex), prefixed with the
      designator type: that designator must be among ours, in the same hex
      (3: NAA, 2: EUI-64) or text (1: T10 vendor id, 8: SCSI name string,
      blanks as udev writes them);
    - a vendor-specific designator (type 0) is prefixed by scsi_id with
      vendor and model, and a device without page 0x83 answers with
      page 0x80 ('S' + vendor, model and serial): neither is compared;
    - a LUN whose page 0x83 the kernel did not read (below SPC-2) is not
      compared: scsi_id asks the device, ours decodes the kernel's copy.
    Returns (LUNs compared, a list of differences, what was compared in
    words)."""
    pages, udev = {}, {}
    kinds = {}
    for line in out.splitlines():
        if line.startswith("@@V "):
            parts = line.split()
            if len(parts) == 5:
                pages[(f"{parts[1]} {parts[2]}", parts[3])] = bytes.fromhex(parts[4])
        elif line.startswith("@@U ") and "=" in line:
            _, name, hctl, kv = line.split(" ", 3)
            k, v = kv.split("=", 1)
            udev.setdefault(f"{name} {hctl}", {})[k] = v
    problems, compared = [], 0
    for hctl, props in sorted(udev.items()):
        # The kernel reads no VPD page of a device below SPC-2 (unless a
        # flag says so): our decoders then have no copy to decode, where
        # scsi_id asks the device itself.
        if (hctl, "vpd_pg83") not in pages:
            continue
        compared += 1
        theirs = props.get("ID_SCSI_SERIAL")
        if theirs is not None and (hctl, "vpd_pg80") in pages:
            d = dict(_decode(decode_dump, "vpd80", pages[(hctl, "vpd_pg80")]))
            ours_serial = d.get("serial")
            kinds["serial"] = kinds.get("serial", 0) + 1
            if (ours_serial or "").strip() != theirs.strip():
                problems.append(f"{hctl}: VPD 0x80 serial: scsi_id {theirs!r}, "
                                f"ours {ours_serial!r}")
        designators = [v.split(" ", 1)[1] for k, v in
                       _decode(decode_dump, "vpd83", pages[(hctl, "vpd_pg83")])
                       if k == "designator" and " " in v]
        serial = props.get("ID_SERIAL", "")
        kind, value = serial[:1], serial[1:]
        if not serial or kind in ("0", "S"):
            continue
        if kind == "3":
            want = "naa." + value
        elif kind == "2":
            want = "eui." + value
        elif kind == "1":
            want = "t10." + value
        elif kind == "8":
            want = value
        else:
            problems.append(f"{hctl}: scsi_id chose designator type {kind}: not compared")
            continue
        name = {"3": "NAA", "2": "EUI-64", "1": "T10", "8": "name"}[kind]
        kinds[name] = kinds.get(name, 0) + 1
        if _ws(want) not in [_ws(d) for d in designators]:
            problems.append(f"{hctl}: scsi_id ID_SERIAL {serial!r} ({want!r}) is not among "
                            f"our designators {designators}")
        wwn = props.get("ID_WWN_WITH_EXTENSION")
        if wwn and "naa." + wwn[2:] not in designators:
            problems.append(f"{hctl}: scsi_id ID_WWN_WITH_EXTENSION {wwn} is not among our "
                            f"designators {designators} (page 0x83: "
                            f"{pages.get((hctl, 'vpd_pg83'), b'').hex()})")
    said = ", ".join(f"{n} {k}" for k, n in sorted(kinds.items()))
    return compared, problems, said


def save_trees(out):
    """With SCSI_SCAN_CAPTURE=DIR set, writes each tree the guest printed
    to DIR/NAME.tar.gz."""
    import base64
    where = os.environ.get("SCSI_SCAN_CAPTURE")
    if not where:
        return []
    trees = {}
    for line in out.splitlines():
        if line.startswith("@@TREE "):
            _, name, data = line.split(" ", 2)
            trees.setdefault(name, []).append(data.strip())
    for name, lines in trees.items():
        os.makedirs(where, exist_ok=True)
        path = os.path.join(where, f"{name}.tar.gz")
        with open(path, "wb") as f:
            f.write(base64.b64decode("".join(lines)))
        log(f"captured {path}")
    return sorted(trees)


COMPARE_RESULT = re.compile(r"@@R (\S+) rc=(\d+) kernel=\[([^\]]*)\] ours=\[([^\]]*)\] "
                            r"kflags=\[([^\]]*)\] kcs=(-?\d+) ocs=(-?\d+)")


def boot(vmlinuz, initrd, qemu_args=(), append="", timeout=900, memory=1024, smp=1):
    """Boots and returns the guest's console output. Fails on timeout or if
    the guest never printed @@DONE."""
    cmd = ["qemu-system-x86_64", "-accel", "tcg", "-m", str(memory), "-smp", str(smp),
           "-nographic", "-no-reboot", "-kernel", vmlinuz, "-initrd", initrd,
           "-append", f"console=ttyS0 quiet panic=-1 {append}".strip(), *qemu_args]
    start = time.monotonic()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, errors="replace",
                           timeout=timeout)
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
        raise VMError(f"guest did not finish within {timeout} s:\n{out[-4000:]}")
    out = p.stdout
    log(f"guest ran {time.monotonic() - start:.1f} s")
    if "@@DONE" not in out:
        raise VMError(f"guest did not finish (qemu exit {p.returncode}):\n{out[-6000:]}\n"
                      f"{p.stderr[-2000:]}")
    return out


def install_project(build_dir, dest):
    """meson install into a staging directory (prefix /usr)."""
    subprocess.run(["meson", "install", "-C", build_dir, "--destdir", dest, "--quiet",
                    "--no-rebuild"], check=True, stdout=subprocess.DEVNULL)
    for p in glob.glob(os.path.join(dest, "usr", "bin", "*")):
        st = os.stat(p)
        os.chmod(p, st.st_mode | stat.S_IXUSR)


# What a package or a meson install of the project puts on this machine, by
# the path a boot-image builder finds it at.
PROJECT_PATHS = ("usr/bin/scsi-scan", "usr/bin/scsi-quirks", "usr/bin/scsi-scand",
                 "usr/lib/scsi-scan", "etc/scsi-scan")
INITRAMFS_TOOLS = "/usr/share/initramfs-tools"
PROJECT_BOOT_FILES = ("hooks/scsi-scan", "scripts/init-premount/scsi-scan",
                      "scripts/local-block/scsi-scan")


def without_project(src, dest, drop):
    """A copy of the directory @src at @dest without the paths @drop (the
    project's own files a package installed there)."""
    shutil.copytree(src, dest, symlinks=True)
    for rel in drop:
        p = os.path.join(dest, rel)
        if os.path.isdir(p) and not os.path.islink(p):
            shutil.rmtree(p)
        elif os.path.lexists(p):
            os.unlink(p)


def hermetic_binds(tmp, staging):
    """Bind mounts for a private mount namespace in which this machine's
    own copy of the project, if any (the package, or meson install), plays
    no part: the tree under test's files (@staging) over the project's
    paths, and initramfs-tools without the project's hook and scripts.
    Returns [(source, target)]."""
    binds = []
    for rel in PROJECT_PATHS:
        src = os.path.join(staging, rel)
        if not os.path.lexists(src):
            src = os.path.join(tmp, "empty-" + rel.replace("/", "-"))
            if rel.startswith("usr/bin/"):
                open(src, "w").close()
            else:
                os.makedirs(src, exist_ok=True)
        binds.append((src, "/" + rel))
    if os.path.isdir(INITRAMFS_TOOLS):
        clean = os.path.join(tmp, "initramfs-tools-clean")
        if not os.path.isdir(clean):
            without_project(INITRAMFS_TOOLS, clean, PROJECT_BOOT_FILES)
        binds.append((clean, INITRAMFS_TOOLS))
    return binds


def run_private(script, binds, timeout=None):
    """Runs the shell @script in a private mount namespace after the bind
    mounts @binds; mount points missing on this machine are made for the
    time of the run. Returns the CompletedProcess."""
    lines = ["set -e", "mount --make-rprivate /"]
    lines += [f"mount --bind '{src}' '{dst}'" for src, dst in binds]
    made = []
    # Suites run side by side: a mount point one makes and removes must not
    # go while another's namespace stands on it.
    lock = open(os.path.join(tempfile.gettempdir(), "scsi-scan-vm-mounts.lock"), "w")
    fcntl.flock(lock, fcntl.LOCK_EX)
    for src, dst in binds:
        if os.path.lexists(dst):
            continue
        parent = os.path.dirname(dst)
        if not os.path.isdir(parent):
            os.makedirs(parent)
            made.append((parent, True))
        if os.path.isdir(src):
            os.mkdir(dst)
            made.append((dst, True))
        else:
            open(dst, "w").close()
            made.append((dst, False))
    try:
        return subprocess.run(["unshare", "--mount", "sh", "-c", "\n".join(lines) + "\n" + script],
                              capture_output=True, text=True, timeout=timeout)
    finally:
        for path, is_dir in reversed(made):
            os.rmdir(path) if is_dir else os.unlink(path)
        lock.close()


def modules_bind(tmp, release, moddir):
    """The bind mount, for run_private(), that puts the kernel's modules
    (@moddir) at /lib/modules/@release, where mkinitramfs and dracut look
    for them (dracut's module checks run modprobe -S @release)."""
    fake = os.path.join(tmp, "lib-modules")
    os.makedirs(fake, exist_ok=True)
    if not os.path.exists(os.path.join(fake, release)):
        os.symlink(moddir, os.path.join(fake, release))
    return (fake, "/lib/modules")


def mkinitramfs(out, release, moddir, staging, with_hook, tmp, sysroot, name, env="",
                drivers="", extra_binds=()):
    """Debian's mkinitramfs with a configuration of our own in @tmp/@name
    (MODULES=list: @drivers, one per line, then sd_mod, sg and ext4), the
    project's hook and scripts from @staging if @with_hook, none a package
    put on this machine; the hook reads the machine's devices under
    @sysroot; @env: more of the hook's environment; @extra_binds: more
    (source, target) bind mounts for the run."""
    conf = os.path.join(tmp, name)
    os.makedirs(os.path.join(conf, "hooks"))
    os.makedirs(os.path.join(conf, "scripts"))
    os.makedirs(os.path.join(conf, "conf.d"))
    with open(os.path.join(conf, "initramfs.conf"), "w") as f:
        f.write("MODULES=list\nBUSYBOX=y\nKEYMAP=n\nCOMPRESS=gzip\nDEVICE=\nNFSROOT=auto\n"
                "RUNSIZE=10%\nFSTYPE=ext4\n")
    with open(os.path.join(conf, "modules"), "w") as f:
        f.write(f"{drivers}sd_mod\nsg\next4\n")
    if with_hook:
        # as installed: meson fills in the hook's paths
        it = os.path.join(staging, "usr", "share", "initramfs-tools")
        shutil.copy2(os.path.join(it, "hooks", "scsi-scan"), os.path.join(conf, "hooks"))
        shutil.copytree(os.path.join(it, "scripts"), os.path.join(conf, "scripts"),
                        dirs_exist_ok=True)
    # the kernel's modules at /lib/modules/VERSION, in a private namespace,
    # and its /boot (mkinitramfs reads the kernel's config there)
    boot = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(moddir))), "boot")
    # Only the tree under test's hook and scripts, never a copy of the
    # project installed on this machine (/usr/share/initramfs-tools).
    binds = hermetic_binds(tmp, staging) + [modules_bind(tmp, release, moddir), (boot, "/boot")]
    binds += list(extra_binds)
    p = run_private(f"{env} SCSI_SCAN_ROOT={staging} SCSI_SCAN_SYSROOT={sysroot} "
                    f"mkinitramfs -d {conf} -o {out} {release}\n", binds)
    if p.returncode != 0:
        raise VMError(f"mkinitramfs failed:\n{p.stdout}\n{p.stderr}")


def install_bench(build_dir, dest):
    """install_project(), plus the benchmarks' clock and wait helper
    (bench/monotonic) in /usr/bin."""
    install_project(build_dir, dest)
    os.makedirs(os.path.join(dest, "usr", "bin"), exist_ok=True)
    shutil.copy2(os.path.join(build_dir, "bench", "monotonic"),
                 os.path.join(dest, "usr", "bin", "monotonic"))


def run_guest(build, series, modules, script, programs=(), timeout=900, what="",
              bench=False, memory=1024, smp=1, append="", later_modules=(), qemu_args=()):
    """Installs the project (with @bench, install_bench()), boots @series with
    @modules loaded and @script as the body of /init, @append on the kernel's
    command line and @qemu_args on QEMU's; returns (release, console output).
    @later_modules and what they need are in /lib/test-modules, not loaded:
    the script finds their names in load order in $LATER_MODULES."""
    vmlinuz, moddir, release = prepare_kernel(series)
    loaded = module_order(moddir, modules)
    later = [m for m in module_order(moddir, later_modules) if m not in loaded]
    with tempfile.TemporaryDirectory() as tmp:
        staging = os.path.join(tmp, "staging")
        (install_bench if bench else install_project)(build, staging)
        initrd = os.path.join(tmp, "initrd.cpio")
        head = f'LATER_MODULES="{" ".join(name for name, _ in later)}"\n'
        build_initramfs(initrd, staging, loaded, INIT_HEAD + head + script + INIT_TAIL,
                        programs=programs, on_demand=later)
        log(f"booting {release}{': ' + what if what else ''}")
        return release, boot(vmlinuz, initrd, qemu_args, timeout=timeout, memory=memory,
                             smp=smp, append=append)


def ratio_quartiles(ratios):
    """The first and third quartiles of a benchmark's per-round ratios (the
    one ratio twice when there is one round)."""
    if len(ratios) < 2:
        return ratios[0], ratios[0]
    q = statistics.quantiles(ratios, n=4)
    return q[0], q[2]


def median_ratio_interval(ours, kernel, resamples=4000):
    """The 95 % bootstrap interval of median(@ours) / median(@kernel): the
    rounds (pairs of one round's times) drawn again with replacement. The
    interquartile range of the per-round ratios says how much one round
    moves; this says how well the rounds together pin the ratio of the
    medians, and narrows as rounds are added. Seeded: a run prints the
    same interval for the same times."""
    rng = random.Random(len(ours))
    n = len(ours)
    if n < 2:
        r = statistics.median(ours) / statistics.median(kernel)
        return r, r
    draws = []
    for _ in range(resamples):
        idx = [rng.randrange(n) for _ in range(n)]
        draws.append(statistics.median(ours[i] for i in idx) /
                     statistics.median(kernel[i] for i in idx))
    draws.sort()
    return draws[int(0.025 * resamples)], draws[int(0.975 * resamples) - 1]


class Checks:
    """Prints one line per check and a closing 'N passed, N failed' line."""

    def __init__(self, series, suite):
        self.series, self.suite = series, suite
        self.passed, self.failed = 0, []
        self.start = time.monotonic()

    def check(self, name, ok, text, width=22):
        line = f"{'ok' if ok else 'FAIL':4} {self.series:5} {name:{width}} {text}"
        print(line, flush=True)
        if ok:
            self.passed += 1
        else:
            self.failed.append(line)

    def finish(self, out, tail=60):
        stuck = re.findall(r"^@@UNLOAD-FAILED (\S+)", out, re.M)
        if stuck:
            self.check("unload", False, f"the guest could not unload {', '.join(stuck)} "
                       "within 10 s: the scenarios after it ran on a stale module")
        if self.failed:
            print("\n".join(ln[:400] for ln in out.splitlines()[-tail:]))
            # Again at the end, where a runner that keeps only the last lines still shows them.
            print("\n".join(self.failed))
        print(f"{self.series}: {self.suite} {self.passed} passed, {len(self.failed)} failed, "
              f"in {time.monotonic() - self.start:.0f} s")
        return 1 if self.failed else 0


def main_guard(main):
    """Runs a test's main and turns a VMError into a clear failure."""
    try:
        sys.exit(main())
    except VMError as e:
        print(f"error: {e}")
        sys.exit(1)


def policy_sysfs(path, hctl, disk, devt):
    """The machine an image with a boot policy is made for: its root file
    system on the whole disk @disk, LUN @hctl of a virtio-scsi host, as
    scsi-quirks boot-policy reads it (SCSI_SCAN_SYSROOT)."""
    dev = os.path.join(path, f"sys/bus/scsi/devices/{hctl}")
    os.makedirs(os.path.join(dev, "block", disk))
    for name, value in (("vendor", "QEMU    "), ("model", "QEMU HARDDISK   "), ("type", "0")):
        with open(os.path.join(dev, name), "w") as f:
            f.write(value + "\n")
    with open(os.path.join(dev, "block", disk, "dev"), "w") as f:
        f.write(devt + "\n")
    host = hctl.split(":")[0]
    os.makedirs(os.path.join(path, f"sys/class/scsi_host/host{host}"))
    with open(os.path.join(path, f"sys/class/scsi_host/host{host}/proc_name"), "w") as f:
        f.write("virtio_scsi\n")
    os.makedirs(os.path.join(path, "sys/class/block"))
    os.symlink(os.path.join(dev, "block", disk), os.path.join(path, "sys/class/block", disk))
    os.makedirs(os.path.join(path, "proc/self"))
    with open(os.path.join(path, "proc/self/mountinfo"), "w") as f:
        f.write(f"22 1 {devt} / / rw,relatime - ext4 /dev/{disk} rw\n")
    return path


# A benchmark's options that take no value.
BENCH_FLAGS = ("--dracut",)


def bench_args(default_rounds):
    """A benchmark's command line: BUILD_DIR [KERNEL_SERIES] [--rounds N] and
    its options (--name VALUE, or one of BENCH_FLAGS)."""
    args = [a for i, a in enumerate(sys.argv[1:], 1) if not a.startswith("--") and
            not (sys.argv[i - 1].startswith("--") and sys.argv[i - 1] not in BENCH_FLAGS)]
    rounds = (int(sys.argv[sys.argv.index("--rounds") + 1]) if "--rounds" in sys.argv
              else default_rounds)
    return args[0], args[1] if len(args) > 1 else "6.12", rounds


def bench_machine(default_smp=2):
    """The guest a benchmark boots, from its command line: --smp N vCPUs
    (@default_smp unless told), and with --icount SHIFT QEMU's instruction
    counting (-icount shift=SHIFT,sleep=off, one vCPU unless told): every
    guest instruction is 2^SHIFT ns of guest time and an idle guest's clock
    jumps to its next timer, so the guest's clock measures the work done in
    the guest whatever else the host runs. Returns (smp, qemu_args, text),
    text saying so for the benchmark's header."""
    shift = sys.argv[sys.argv.index("--icount") + 1] if "--icount" in sys.argv else None
    smp = (int(sys.argv[sys.argv.index("--smp") + 1]) if "--smp" in sys.argv
           else 1 if shift else default_smp)
    cpus = f"{smp} vCPU{'s' if smp > 1 else ''}"
    if not shift:
        return smp, (), f"QEMU TCG, {cpus}"
    return smp, ("-icount", f"shift={shift},sleep=off"), (
        f"QEMU TCG with -icount shift={shift},sleep=off (guest time: {2 ** int(shift)} ns "
        f"per guest instruction, and a wait for a timer as long as the timer), {cpus}")


def load_test(name, build, series):
    """tests/vm/@name (a test script) as a module, for the benchmarks that
    share its guest, target or images."""
    import importlib.util
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), name)
    spec = importlib.util.spec_from_file_location(name.replace("-", "_")[:-3], path)
    argv, sys.argv = sys.argv, [sys.argv[0], build, series]
    try:
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        sys.argv = argv
    return module


def load_transports(build, series):
    """tests/vm/test-transports.py as a module: its guest script, modules and
    helpers, for the benchmarks that share its LIO target and logins."""
    return load_test("test-transports.py", build, series)
