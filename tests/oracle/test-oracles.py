#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The project's decoders of INQUIRY, VPD pages 0x80 and 0x83 and REPORT
LUNS held against another implementation: sg3-utils' sg_inq, sg_vpd and
sg_luns, on every page captured in tests/ (tests/data/vpd-captures.txt and
the sysfs trees of tests/data/trees) and on fuzzed variants of them (a fixed
seed: the same inputs every run).

Where the two decode the same field they must agree. The differences that
are not defects are named below, each with why:
- vendor, product and revision: we clean them as the kernel does
  (scsi_sanitize_inquiry_string(): a byte below 0x20 or above 0x7e is a
  space, and so is everything after a NUL; leading and trailing blanks go);
  sg_inq prints the bytes. The comparison cleans sg_inq's text the same way.
- responses shorter than 5 bytes: sg_inq decodes what is there and zeroes
  the rest; ours refuses them (no additional length to read).
- fields past the end of a short INQUIRY response: sg_inq stops at the
  bytes it has; ours pads with blanks, as the kernel pads. Compared only
  where both have the bytes.
- VPD 0x83: ours keeps logical-unit designators only (the association the
  ghost check compares), and stops at a descriptor that runs past the page;
  sg_vpd reports such a page as an error. A page that claims more bytes
  than there are: ours reads the whole descriptors that are there, sg_vpd
  none. A descriptor whose reserved byte 2 is set: ours passes over it as
  the kernel's scsi_vpd_lun_id() does, sg_vpd decodes no designator of the
  page. Compared: the number of each designator type, and the value of NAA
  and EUI-64 ones.
- VPD 0x80: ours refuses a page whose serial is empty or blank; sg_vpd
  prints an empty serial. A serial is compared cleaned on both sides.
- REPORT LUNS: sg_luns 1.46 (Debian 12) has no --inhex, so the list framing
  (header, truncation, duplicates) is ours alone; each LUN's conversion
  between the 8-byte T10 form and the Linux integer is held against
  sg_luns --test=L<integer> and the bytes of the response.

Usage: test-oracles.py DECODE_DUMP TESTS_DIR
"""

import os
import random
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile

DUMP, TESTS = sys.argv[1:3]
FUZZ_PER_PAGE = 6
SEED = 20261205

DESIGNATOR_TYPES = {
    "vendor specific [0x0]": 0, "T10 vendor identification": 1, "EUI-64 based": 2,
    "NAA": 3, "Relative target port": 4, "Target port group": 5,
    "Logical unit group": 6, "MD5 logical unit identifier": 7, "SCSI name string": 8,
    "Protocol specific port identifier": 9, "UUID identifier": 10,
}


def clean(raw):
    """A field as the kernel's scsi_sanitize_inquiry_string() leaves it,
    then trimmed as inquiry_field_clean() trims it."""
    out = []
    nul = False
    for ch in raw:
        c = ord(ch)
        nul = nul or c == 0
        out.append(" " if nul or c < 0x20 or c > 0x7e else ch)
    return "".join(out).strip(" ")


OURS = {}


def decode_all(kind, paths):
    """decode-dump over many files at once: {path: {key: [values]}}."""
    for i in range(0, len(paths), 500):
        p = subprocess.run([DUMP, kind, *paths[i:i + 500]], capture_output=True, timeout=300)
        if p.returncode != 0:
            raise AssertionError(f"decode-dump {kind}: {p.stderr!r}")
        fields = None
        for line in p.stdout.decode("latin-1").splitlines():
            k, _, v = line.partition("=")
            if k == "file":
                fields = OURS[v] = {}
                continue
            fields.setdefault(k, []).append(v)


def ours(kind, path):
    return OURS[path]


def sg(args):
    p = subprocess.run(args, capture_output=True, timeout=60)
    return p.returncode, p.stdout.decode("latin-1")


def check_inquiry(path, data, problems):
    mine = ours("inquiry", path)
    if len(data) < 5:
        if "error" not in mine:
            problems.append(f"{path}: {len(data)} bytes decoded by us")
        return
    rc, out = sg(["sg_inq", f"--inhex={path}", "--raw", "--page=sinq"])
    if rc != 0:
        problems.append(f"{path}: sg_inq exit {rc}: {out[:200]}")
        return
    m = re.search(r"PQual=(\d+)\s+PDT=(\d+)\s+RMB=(\d+).*?version=0x([0-9a-f]{2})", out, re.S)
    if not m:
        problems.append(f"{path}: sg_inq did not decode it: {out[:200]}")
        return
    want = {"pq": m.group(1), "pdt": m.group(2), "rmb": m.group(3),
            "version": "0x" + m.group(4)}
    m = re.search(r"Resp_data_format=(\d+)", out)
    if len(data) >= 4:
        want["format"] = m.group(1)
    m = re.search(r"TPGS=(\d+)", out)
    if len(data) >= 6:
        want["tpgs"] = m.group(1)
    want["length"] = re.search(r"length=(\d+)", out).group(1)
    # sg_inq prints each field's bytes up to a NUL, newlines and all
    for key, label, end, start, size in (
            ("vendor", "Vendor identification", r"\n Product identification: ", 8, 8),
            ("product", "Product identification", r"\n Product revision level: ", 16, 16),
            ("revision", "Product revision level", r"\n?$", 32, 4)):
        if len(data) < start + size:
            continue
        m = re.search(" " + label + ": (.*?)" + end, out, re.S)
        if m:
            want[key] = clean(m.group(1))
    for k, v in want.items():
        got = mine.get(k, ["<missing>"])[0]
        if k == "rmb":
            got = "1" if got not in ("0", "<missing>") else got
        if got != v:
            problems.append(f"{path}: INQUIRY {k}: ours {got!r}, sg_inq {v!r}")


def check_vpd80(path, data, problems):
    mine = ours("vpd80", path)
    rc, out = sg(["sg_vpd", f"--inhex={path}", "--raw", "--page=sn"])
    m = re.search(r"Unit serial number: (.*)\n", out)
    theirs = clean(m.group(1)) if rc == 0 and m else None
    cut = len(data) < 4 or len(data) < 4 + (data[2] << 8 | data[3])
    if "error" in mine:
        # a page shorter than its own length: sg_vpd prints what is there,
        # ours takes no serial that may be cut, nor one of a page whose
        # qualifier says no unit is at the LUN
        if theirs and not cut and data[1] == 0x80 and not data[0] >> 5:
            problems.append(f"{path}: VPD 0x80: ours refused it, sg_vpd read {theirs!r}")
        return
    if theirs is None:
        problems.append(f"{path}: VPD 0x80: ours read {mine['serial'][0]!r}, sg_vpd nothing "
                        f"(exit {rc})")
    elif mine["serial"][0] != theirs:
        problems.append(f"{path}: VPD 0x80: ours {mine['serial'][0]!r}, sg_vpd {theirs!r}")


def walk_ok(data):
    """Whether the page is all there and every descriptor lies inside it.
    A page longer than the bytes at hand: ours reads the whole descriptors
    that are there, sg_vpd 1.46 none. A descriptor past the page's end:
    sg_vpd calls the page broken, ours stops at that descriptor."""
    if len(data) < 4 or 4 + (data[2] << 8 | data[3]) > len(data):
        return False
    end = 4 + (data[2] << 8 | data[3])
    off = 4
    while off + 4 <= end:
        # byte 2 is reserved: the kernel (scsi_vpd_lun_id()) and ours pass
        # over it, sg_vpd 1.46 then decodes no designator of the page
        if data[off + 2]:
            return False
        off += 4 + data[off + 3]
    return off == end


# The lengths a unique designator must have (identity.c's
# designator_well_formed()): one that does not fit names no unit, so ours
# leaves it out where sg_vpd prints it.
UNIQUE_LENGTHS = {3: (8, 16), 2: (8, 12, 16), 0xa: (18,)}


def ill_formed(data):
    """Per type, the logical-unit designators ours leaves out."""
    out = {}
    end = min(len(data), 4 + (data[2] << 8 | data[3]))
    off = 4
    while off + 4 <= end:
        n = data[off + 3]
        if off + 4 + n > end:
            break
        t, assoc = data[off + 1] & 0x0f, (data[off + 1] >> 4) & 3
        body = data[off + 4:off + 4 + n]
        bad = (t in UNIQUE_LENGTHS and n not in UNIQUE_LENGTHS[t]) or \
            (t == 8 and (n < 4 or body[0] == 0))
        if assoc == 0 and bad:
            out[t] = out.get(t, 0) + 1
        off += 4 + n
    return out


def check_vpd83(path, data, problems):
    mine = ours("vpd83", path)
    if "error" in mine:
        # a qualifier other than 0 says no unit is at the LUN: ours
        # refuses the page on purpose
        if len(data) >= 4 and data[1] == 0x83 and not data[0] >> 5:
            problems.append(f"{path}: VPD 0x83 refused by us")
        return
    if not walk_ok(data):
        return
    rc, out = sg(["sg_vpd", f"--inhex={path}", "--raw", "--page=di_lu"])
    if rc != 0:
        problems.append(f"{path}: sg_vpd exit {rc}: {out[:200]}")
        return
    counts = {}
    naa = []
    lines = out.splitlines()
    for i, line in enumerate(lines):
        m = re.match(r"\s+designator type: (.*?),\s+code set:", line)
        if not m:
            continue
        r = re.match(r"Reserved \[0x([0-9a-f])\]", m.group(1))
        t = int(r.group(1), 16) if r else DESIGNATOR_TYPES.get(m.group(1))
        if t is None:
            problems.append(f"{path}: sg_vpd names a designator type we do not map: {line}")
            continue
        counts[t] = counts.get(t, 0) + 1
        if t in (2, 3) and i + 1 < len(lines):
            v = re.match(r"\s+0x([0-9a-f]+)", lines[i + 1])
            if v and len(v.group(1)) // 2 in UNIQUE_LENGTHS[3 if t == 3 else 2]:
                naa.append(("eui." if t == 2 else "naa.") + v.group(1))
    for t, n in ill_formed(data).items():
        counts[t] = counts.get(t, 0) - n
        if counts[t] <= 0:
            del counts[t]
    got = {int(k.split(".")[1]): int(v[0]) for k, v in mine.items() if k.startswith("count.")}
    if got != counts:
        problems.append(f"{path}: VPD 0x83 LU designators by type: ours {got}, "
                        f"sg_vpd {counts}")
    kept = [v.split(" ", 1)[1] for v in mine.get("designator", []) if " " in v]
    for value in naa:
        if not any(k == value for k in kept) and len(kept) < 8:
            problems.append(f"{path}: VPD 0x83 {value}: sg_vpd reports it, ours does not "
                            f"({kept})")


def check_luns(path, data, problems, converted):
    mine = ours("luns", path)
    if "error" in mine:
        if len(data) >= 8:
            problems.append(f"{path}: REPORT LUNS refused by us")
        return
    listed = {data[8 + 8 * i:16 + 8 * i].hex() for i in range((len(data) - 8) // 8)}
    for line in mine.get("lun", []):
        integer, t10 = line.split()
        if t10 not in listed:
            problems.append(f"{path}: LUN {integer} as {t10}, which the response lacks")
        if integer in converted:
            theirs = converted[integer]
        else:
            rc, out = sg(["sg_luns", f"--test=L{integer}"])
            m = re.search(r"format:\s+((?:[0-9a-f]{2} ?){8})", out)
            theirs = converted[integer] = m.group(1).replace(" ", "") if m else None
        if theirs is None:
            problems.append(f"{path}: sg_luns cannot convert Linux LUN {integer}")
        elif theirs != t10:
            problems.append(f"{path}: Linux LUN {integer}: ours {t10}, sg_luns {theirs}")


def pages():
    """(kind, name, bytes) of every captured page."""
    with open(os.path.join(TESTS, "data", "vpd-captures.txt")) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            tag, hctl, attr, hexdata = line.split()
            kind = {"inquiry": "inquiry", "vpd_pg80": "vpd80", "vpd_pg83": "vpd83"}[attr]
            yield kind, f"{tag}-{hctl}-{attr}", bytes.fromhex(hexdata)
    for tar in sorted(os.listdir(os.path.join(TESTS, "data", "trees"))):
        with tarfile.open(os.path.join(TESTS, "data", "trees", tar)) as t:
            for m in t.getmembers():
                base = os.path.basename(m.name)
                kind = {"inquiry": "inquiry", "vpd_pg80": "vpd80", "vpd_pg83": "vpd83",
                        "report_luns": "luns"}.get(base)
                if not kind or not m.isfile():
                    continue
                yield kind, f"{tar}:{m.name}", t.extractfile(m).read()


def fuzzed(rng, kind, data):
    """Variants of one page: bytes flipped, cut short, lengths lying."""
    for _ in range(FUZZ_PER_PAGE):
        b = bytearray(data)
        how = rng.randrange(4)
        if how == 0 and b:
            for _ in range(rng.randint(1, 4)):
                b[rng.randrange(len(b))] = rng.randrange(256)
        elif how == 1 and b:
            del b[rng.randrange(len(b)):]
        elif how == 2 and len(b) >= 4:
            if kind == "luns":
                b[0:4] = rng.randrange(1 << 16).to_bytes(4, "big")
            elif kind == "inquiry":
                b[4] = rng.randrange(256)
            else:
                b[2:4] = rng.randrange(1 << 10).to_bytes(2, "big")
        else:
            b += bytes(rng.randrange(256) for _ in range(rng.randint(1, 24)))
        yield bytes(b)


def main():
    for tool in ("sg_inq", "sg_vpd", "sg_luns"):
        if not shutil.which(tool):
            print(f"{tool} missing (Debian package sg3-utils)")
            return 77
    rng = random.Random(SEED)
    problems, converted = [], {}
    counts = {}
    checks = {"inquiry": check_inquiry, "vpd80": check_vpd80, "vpd83": check_vpd83}
    with tempfile.TemporaryDirectory() as tmp:
        inputs = []
        for kind, name, data in pages():
            for variant, b in enumerate([data, *fuzzed(rng, kind, data)]):
                path = os.path.join(tmp, f"page-{len(inputs)}")
                with open(path, "wb") as f:
                    f.write(b)
                inputs.append((kind, name, variant, path, b))
        for kind in ("inquiry", "vpd80", "vpd83", "luns"):
            decode_all(kind, [i[3] for i in inputs if i[0] == kind])
        for kind, name, variant, path, b in inputs:
            before = len(problems)
            if kind == "luns":
                check_luns(path, b, problems, converted)
            else:
                checks[kind](path, b, problems)
            for i in range(before, len(problems)):
                problems[i] = f"{name}{' (fuzzed)' if variant else ''}: {problems[i]}"
            counts[kind] = counts.get(kind, 0) + 1
    print("pages compared: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())) +
          f"; {len(converted)} LUN conversions")
    for p in problems:
        print("DIFFERS:", p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
