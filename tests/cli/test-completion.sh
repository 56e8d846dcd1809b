#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The bash completions: installed where bash-completion looks, and each
# completes its options, subcommands and (scsi-scan) selectors.
set -u
src=$1 dest=$2
fail=0
check() { if ! "$@"; then echo "FAIL: $*"; fail=1; fi; }
complete_words() { # FILE FUNCTION WORD...
	local file=$1 fn=$2
	shift 2
	# shellcheck disable=SC1090
	source "$file"
	COMP_WORDS=("$@")
	COMP_CWORD=$(($# - 1))
	COMPREPLY=()
	"$fn"
	printf '%s\n' "${COMPREPLY[@]}"
}
has() { grep -qx -- "$1" <<<"$2"; }

for p in scsi-scan scsi-quirks scsi-scand; do
	check test -f "$dest/usr/share/bash-completion/completions/$p"
	check bash -n "$src/completion/$p"
done
out=$(complete_words "$src/completion/scsi-scan" _scsi_scan scsi-scan --ti)
check has --timeout "$out"
check has --time-limit "$out"
out=$(complete_words "$src/completion/scsi-scan" _scsi_scan scsi-scan l)
check has list "$out"
out=$(complete_words "$src/completion/scsi-scan" _scsi_scan scsi-scan w)
check has wait "$out"
# "-:" starts a selector, not an option
out=$(complete_words "$src/completion/scsi-scan" _scsi_scan scsi-scan -:)
if has --dry-run "$out"; then echo "FAIL: -: completed as an option"; fail=1; fi
out=$(complete_words "$src/completion/scsi-quirks" _scsi_quirks scsi-quirks query --)
check has --vendor "$out"
out=$(complete_words "$src/completion/scsi-quirks" _scsi_quirks scsi-quirks ex)
check has export "$out"
out=$(complete_words "$src/completion/scsi-quirks" _scsi_quirks scsi-quirks su)
check has suggest "$out"
out=$(complete_words "$src/completion/scsi-quirks" _scsi_quirks scsi-quirks suggest --j)
check has --json "$out"
out=$(complete_words "$src/completion/scsi-quirks" _scsi_quirks scsi-quirks boot)
check has boot-policy "$out"
out=$(complete_words "$src/completion/scsi-quirks" _scsi_quirks scsi-quirks boot-policy /)
check has / "$out"
out=$(complete_words "$src/completion/scsi-scand" _scsi_scand scsi-scand --max)
check has --max-workers "$out"
# Every option a program's --help names is completed and in its man page.
for p in scsi-scan scsi-quirks scsi-scand; do
	for opt in $("$dest/usr/bin/$p" --help | grep -o -- '--[a-z][a-z-]*' | sort -u); do
		grep -q -- "$opt" "$src/completion/$p" || { echo "FAIL: $p $opt not completed"; fail=1; }
		grep -qF -- "${opt//-/\\-}" "$src/man/$p.8" ||
			{ echo "FAIL: $p $opt not in $p.8"; fail=1; }
	done
done
[ $fail = 0 ] && echo "completion: ok"
exit $fail
