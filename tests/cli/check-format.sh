#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Every C file of the tree as .clang-format has it (the kernel's style).
set -u
src=$1 tool=$2
cd "$src" || exit 1
if git rev-parse --git-dir >/dev/null 2>&1; then
	mapfile -t files < <(git ls-files '*.c' '*.h')
else
	mapfile -t files < <(find include src tests fuzz bench -name '*.[ch]')
fi
"$tool" --dry-run --Werror "${files[@]}" || {
	echo "format: run $tool -i on the files above"
	exit 1
}
echo "format: ${#files[@]} files as .clang-format has them"
