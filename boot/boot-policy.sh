# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=sh
# Sourced by the boot scripts that wait for the root with the image's boot
# policy (initramfs-tools' local-block, dracut's initqueue/settled hook);
# installed at /usr/lib/scsi-scan/boot-policy.sh in the image. Defines
# functions only. POSIX sh, klibc's tools: no grep, rm, sed.
#
# The boot policy names the root's LUNs as they were when the image was
# made: a root not found within 5 s of waiting (moved to another LUN,
# another array) is looked for on every LUN. The 5 s count from the first
# call, and again from the last new SCSI host or transport target (an
# iSCSI session's login, an FC remote port, a SAS end device): a root on
# the network cannot appear before its session. A policy that names
# targets of a transport waits up to 60 s for the first of them instead:
# DHCP and the iSCSI login, or the fabric login, may take longer than 5 s
# with nothing else changing meanwhile.

# scsi_scan_limit_of VALUE - prints the bound on one run that scsi-scan's
# --time-limit takes (0-86400 seconds) from scsi_scan.timeout=VALUE, without
# the quotes the kernel leaves on a value; any other value ("30s", "-5")
# prints 120 and says so on stderr: a value scsi-scan refuses would stop
# every scan of the boot, and the root would not be found.
scsi_scan_limit_of() {
	scsi_scan_v=${1#\"}
	scsi_scan_v=${scsi_scan_v%\"}
	while :; do
		case "$scsi_scan_v" in
		0?*) scsi_scan_v=${scsi_scan_v#0} ;;
		*) break ;;
		esac
	done
	case "$scsi_scan_v" in
	"" | *[!0-9]* | ??????*) ;;
	*)
		if [ "$scsi_scan_v" -le 86400 ]; then
			echo "$scsi_scan_v"
			return 0
		fi
		;;
	esac
	echo "scsi-scan: scsi_scan.timeout=$1 is not 0-86400 seconds: 120 s" >&2
	echo 120
	return 1
}

# scsi_scan_policy_ready - whether each transport the boot policy names
# targets of (iscsi_target, port_name, sas_address) has one yet.
scsi_scan_policy_ready() {
	scsi_scan_need=
	while read -r scsi_scan_key _; do
		case "$scsi_scan_key" in
		iscsi_target) scsi_scan_need="$scsi_scan_need iscsi_session" ;;
		port_name) scsi_scan_need="$scsi_scan_need fc_remote_ports" ;;
		sas_address) scsi_scan_need="$scsi_scan_need sas_end_device" ;;
		esac
	done </run/scsi-scan/boot-lunmask.conf
	for scsi_scan_class in $scsi_scan_need; do
		set -- /sys/class/"$scsi_scan_class"/*
		[ -e "$1" ] || return 1
	done
	return 0
}

# scsi_scan_policy_waited - whether the boot has waited long enough for its
# root (5 s, or 60 s before the policy's transport has a target) since the
# SCSI hosts and transport targets last changed. Keeps what it saw and
# since when in /run/scsi-scan/boot-policy.seen and .since.
scsi_scan_policy_waited() {
	scsi_scan_wait=5
	scsi_scan_policy_ready || scsi_scan_wait=60
	scsi_scan_seen=$(echo /sys/class/scsi_host/* /sys/class/iscsi_session/* \
		/sys/class/fc_remote_ports/* /sys/class/sas_end_device/*)
	scsi_scan_was=
	[ -s /run/scsi-scan/boot-policy.seen ] &&
		read -r scsi_scan_was </run/scsi-scan/boot-policy.seen
	read -r scsi_scan_up _ </proc/uptime
	scsi_scan_up=${scsi_scan_up%%.*}
	if [ "$scsi_scan_seen" != "$scsi_scan_was" ] ||
		[ ! -s /run/scsi-scan/boot-policy.since ]; then
		echo "$scsi_scan_seen" >/run/scsi-scan/boot-policy.seen
		echo "$scsi_scan_up" >/run/scsi-scan/boot-policy.since
	fi
	read -r scsi_scan_since </run/scsi-scan/boot-policy.since
	[ $((scsi_scan_up - scsi_scan_since)) -ge "$scsi_scan_wait" ]
}

# scsi_scan_policy_drop REMAKE - empties the boot's policy file (every LUN
# is attached from now on), logs why in /run/scsi-scan.log and prints it
# for the caller's console; REMAKE is the command that makes the policy
# again.
scsi_scan_policy_drop() {
	: >/run/scsi-scan/boot-lunmask.conf
	scsi_scan_msg="scsi-scan: the root is on none of the LUNs of the image's boot"
	scsi_scan_msg="$scsi_scan_msg policy; every LUN is attached ($1 makes"
	scsi_scan_msg="$scsi_scan_msg the policy again)"
	echo "$scsi_scan_msg" >>/run/scsi-scan.log
	echo "$scsi_scan_msg"
}
