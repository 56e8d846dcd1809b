#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Prints the kernel's scsi_dh_blist as TSV (vendor, model, handler) from a
scsi_mod.ko that keeps its symbols: each entry's three pointers are read
through the module's relocations of the array into its string sections.
This is how tests/data/linux-scsi-dh-table.tsv was made, from Debian's
6.1.0-57 and 6.12.118 modules (the two give the same 39 entries):

  dump-scsi-dh-table.py scsi_mod.ko > linux-scsi-dh-table.tsv
"""
import re
import subprocess
import sys


def readelf(*args):
    return subprocess.run(["readelf", "-W", *args], capture_output=True, text=True,
                          check=True).stdout


def main(ko):
    data = open(ko, "rb").read()
    sections = {}
    for m in re.finditer(r"\[\s*(\d+)\]\s+(\S+)\s+\S+\s+[0-9a-f]+\s+([0-9a-f]+)",
                         readelf("-S", ko)):
        sections[int(m.group(1))] = (m.group(2), int(m.group(3), 16))
    offset_of = {name: off for name, off in sections.values()}
    sym = next(line.split() for line in readelf("-s", ko).splitlines()
               if line.endswith(" scsi_dh_blist"))
    base, size, section = int(sym[1], 16), int(sym[2]), sections[int(sym[6])][0]
    pointers = {}
    for block in readelf("-r", ko).split("\nRelocation section '"):
        if not block.startswith(f".rela{section}'"):
            continue
        for line in block.splitlines()[2:]:
            p = line.split()
            if len(p) < 7 or not base <= int(p[0], 16) < base + size:
                continue
            addend = int(p[-1], 16) * (1 if p[-2] == "+" else -1)
            pointers[int(p[0], 16) - base] = (p[4], addend)
    print("vendor\tmodel\thandler")
    for entry in range(size // 24):
        fields = []
        for f in range(3):
            target = pointers.get(entry * 24 + f * 8)
            if not target:
                break
            start = offset_of[target[0]] + target[1]
            fields.append(data[start:data.index(b"\0", start)].decode())
        if len(fields) == 3:
            print("\t".join(fields))


if __name__ == "__main__":
    main(sys.argv[1])
