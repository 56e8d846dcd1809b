#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The removal rule held against generated worlds, with the real scsi-scan
on the fake kernel.

Each world: one or two hosts, with or without a transport class (iSCSI, or
a host at a PCI place of its own), a target of LUN 0 and up to four more,
some mounted. scsi-scan attaches them; then the world changes under it:
a LUN answers a short INQUIRY, blank vendor and model, qualifier 1 or 3,
fails INQUIRY, gives a malformed NAA designator, is another unit, leaves
the REPORT LUNS list, or the list comes cut short; a lunmask policy, a
hold-out of the LUN's own host, or one that names no host may refuse a
LUN. scsi-scan runs again, with --remove or without.

The invariant, written here apart from the code: a LUN is deleted only when
a complete, trusted answer says it changed (another unit) or went (a whole
list without it), or a policy or this host's hold-out refuses it and
--remove asks; never when something holds it. A LUN whose answer could not
be read is still there afterwards.

Detach worlds: a volume on two paths under a map, the map's flush slow or
failing, SIGTERM at a random moment: either the detach finished (no path,
its hold-out there), or nothing was deleted and no hold-out is left.

The seed is printed; REMOVAL_MODEL_SEED replays it, REMOVAL_MODEL_WORLDS
and REMOVAL_MODEL_DETACHES set the counts.
"""
import importlib.util
import os
import random
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SCAN, FAKE, QUIRKS = sys.argv[1:4]
# Tree, from the CLI tests: the fake kernel's world
sys.argv = [sys.argv[0], SCAN, FAKE, QUIRKS, "scsi-quirks"]
spec = importlib.util.spec_from_file_location("cli", os.path.join(HERE, "test-scsi-scan.py"))
cli = importlib.util.module_from_spec(spec)
spec.loader.exec_module(cli)

IQN = "iqn.2003-01.org.example:m{}"
# What a LUN may answer on the second run.
MUTATIONS = ["same", "same", "short", "blank", "pq1", "pq3", "fail", "naa0", "naa2", "remap",
             "unlisted", "cut-list"]
UNREADABLE = {"short", "blank", "pq1", "fail", "naa0", "naa2"}


class World:
    def __init__(self, rng):
        self.rng = rng
        self.hosts = list(range(rng.choice((1, 2))))
        self.iscsi = {h: rng.random() < 0.5 for h in self.hosts}
        self.luns = {h: [0] + sorted(rng.sample([1, 2, 3, 5, 7], rng.randint(1, 4)))
                     for h in self.hosts}
        self.mounted = {(h, lun) for h in self.hosts for lun in self.luns[h]
                        if rng.random() < 0.15}
        self.remove = rng.random() < 0.7
        self.mutation = {(h, lun): rng.choice(MUTATIONS) for h in self.hosts
                         for lun in self.luns[h]}
        # the whole list cut short, for a host one of whose LUNs asks it
        self.cut = {h for h in self.hosts
                    if any(self.mutation[(h, lun)] == "cut-list" for lun in self.luns[h])}
        # refusals: (host, lun) -> "policy" | "holdout" | "holdout-no-host"
        self.refused = {}
        for h in self.hosts:
            if rng.random() < 0.4:
                lun = rng.choice(self.luns[h][1:])
                self.refused[(h, lun)] = rng.choice(("policy", "holdout", "holdout-no-host"))
        self.describe = (f"hosts {self.hosts} iscsi {self.iscsi} luns {self.luns} mounted "
                         f"{sorted(self.mounted)} remove {self.remove} mutation "
                         f"{self.mutation} refused {self.refused}")

    def naa(self, h, lun, gen=0):
        return f"60014050{h:02x}{lun:02x}{gen:02x}00"

    def script(self, after):
        lines = []
        for h in self.hosts:
            tr = " transport iscsi" if self.iscsi[h] else ""
            lines.append(f"host {h} max_id 1 max_lun 49410{tr}")
            listed = []
            for lun in self.luns[h]:
                m = self.mutation[(h, lun)] if after else "same"
                words = [f"lu {h}:0:0:{lun} version 5 vendor ACME model Disk sectors 8"]
                gen = 1 if m == "remap" else 0
                words.append(f"naa {self.naa(h, lun, gen)} serial S{h}{lun}{gen}")
                if (h, lun) in self.mounted:
                    words.append(f"mounted /m{h}{lun}")
                if m == "short":
                    words.append(f"inq_len {self.rng.randint(5, 35)}")
                elif m == "blank":
                    words[0] = words[0].replace("vendor ACME model Disk",
                                                "vendor ________ model ________________")
                elif m == "pq1":
                    words.append("pq 1")
                elif m == "pq3":
                    words.append("pq 3 pdt 31")
                elif m == "naa0":
                    words.append("naa_len 0")
                elif m == "naa2":
                    words.append("naa_len 2")
                lines.append(" ".join(words))
                if m == "fail":
                    lines.append(f"inquiry {h}:0:0:{lun} fail")
                if m != "unlisted" and m != "pq3":
                    listed.append(lun)
            if after:
                lines.append(f"report {h}:0:0 list {','.join(str(x) for x in listed)}")
                # 16 bytes: the header and one LUN; a list of one is whole
                if h in self.cut and len(listed) > 1:
                    lines.append(f"report {h}:0:0 short 16")
                else:
                    self.cut.discard(h)
        return "\n".join(lines) + "\n"

    def build(self):
        t = cli.Tree(self.script(False), hosts=tuple(self.hosts))
        probe = [h for h in self.hosts if not self.iscsi[h]]
        t.host_parents(probe)
        for i, h in enumerate(probe):
            self.parent = getattr(self, "parent", {})
            self.parent[h] = f"pci0000:00/0000:00:{4 + i:02x}.0"
        for n, h in enumerate(h for h in self.hosts if self.iscsi[h]):
            t.iscsi_session(h, n + 1, 0, IQN.format(h))
        return t

    def refusals(self, t):
        etc = os.path.join(t.root, "etc-quirks")
        os.makedirs(etc)
        held = os.path.join(t.root, "run/scsi-scan/holdout")
        os.makedirs(held, exist_ok=True)
        for (h, lun), how in self.refused.items():
            if self.iscsi[h]:
                key = f'\tiscsi_target = "{IQN.format(h)}"\n'
            elif how == "holdout-no-host":
                key = "\tdriver = \"fake\"\n\tchannel = 0\n\tid = 0\n"
            else:
                key = (f'\thost_path = "{self.parent[h]}"\n\tdriver = "fake"\n'
                       "\tchannel = 0\n\tid = 0\n")
            if self.iscsi[h] and how == "holdout-no-host":
                # an iSCSI hold-out always names its target
                self.refused[(h, lun)] = how = "holdout"
            text = f'lunmask "m{h}{lun}" {{\n{key}\texclude_luns = {{ {lun} }}\n}}\n'
            where = etc if how == "policy" else held
            with open(os.path.join(where, f"m{h}-{lun}.conf"), "w") as f:
                f.write(text)
        return etc

    def may_delete(self, h, lun):
        """Why the rule may delete the LUN on this run, or None."""
        if (h, lun) in self.mounted:
            return None
        m = self.mutation[(h, lun)]
        if m == "remap":
            return "another unit, read whole"
        how = self.refused.get((h, lun))
        if self.remove and how in ("policy", "holdout"):
            return f"refused by the {how}"
        if self.remove and m in ("unlisted", "pq3") and h not in self.cut:
            return "a whole list without it"
        return None

    def must_stay(self, h, lun):
        """Whether the LUN must still be attached after the run."""
        m = self.mutation[(h, lun)]
        if (h, lun) in self.mounted:
            return True
        return m in UNREADABLE and self.may_delete(h, lun) is None


def run_world(rng, n):
    w = World(rng)
    t = w.build()
    try:
        t.run(rc=None, quirks=(QUIRKS,))
        before = set(t.devices())
        etc = w.refusals(t)
        with open(t.script, "w") as f:
            f.write(w.script(True))
        done = len(t.commands())
        args = ["--remove"] if w.remove else []
        p = t.run(*args, quirks=(QUIRKS, etc), rc=None, timeout=120)
        after = set(t.devices())
        deletes = [c.split()[1] for c in t.commands()[done:] if c.startswith("delete ")]
        problems = []
        for d in deletes:
            h, _, _, lun = (int(x) for x in d.split(":"))
            if d in before and w.may_delete(h, lun) is None:
                problems.append(f"{d} deleted ({w.mutation[(h, lun)]}, refused "
                                f"{w.refused.get((h, lun))}) with no reason")
        for h in w.hosts:
            for lun in w.luns[h]:
                d = f"{h}:0:0:{lun}"
                if d in before and w.must_stay(h, lun) and d not in after:
                    problems.append(f"{d} ({w.mutation[(h, lun)]}) gone")
        if problems:
            return (f"world {n}: {'; '.join(problems)}\n  {w.describe}\n  attached before "
                    f"{sorted(before)}, after {sorted(after)}\n  deletes {deletes}\n"
                    f"  {p.stdout[-1500:]}\n  {p.stderr[-800:]}"), len(deletes)
        return None, len(deletes)
    finally:
        t.cleanup()


def run_detach(rng, n):
    """A detach stopped by SIGTERM at a random moment."""
    flush_fails = rng.random() < 0.3
    delay = rng.choice((0.0, 0.1, 0.3))
    signal_at = rng.uniform(0.0, 0.6)
    # the CLI tests' volume: LUN 2 of target t1 on two sessions under mpatha
    vol = cli.Volumes()
    iqn = vol.IQN
    t, bindir = vol.mapped(f"sleep {delay}\n" + ("exit 1" if flush_fails else "FLUSH"))
    try:
        env = dict(os.environ, FAKE_KERNEL_ROOT=t.root, FAKE_KERNEL_SCRIPT=t.script,
                   FAKE_KERNEL_LOG=t.log, LD_PRELOAD=FAKE,
                   PATH=bindir + ":" + os.environ["PATH"])
        proc = subprocess.Popen([SCAN, "--sysroot", t.root, "detach", "--iscsi-target", iqn,
                                 "--lun", "2"], env=env, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
        time.sleep(signal_at)
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=120)
        held = os.path.join(t.root, "run/scsi-scan/holdout")
        holdouts = os.listdir(held) if os.path.isdir(held) else []
        paths = [d for d in t.devices() if d.endswith(":2")]
        finished = not paths and holdouts and proc.returncode == 0
        untouched = len(paths) == 2 and not holdouts and proc.returncode != 0
        # stopped between the deletes: the hold-out stays, so that the
        # deleted path does not come back, and says to run it again
        partial = len(paths) == 1 and holdouts and proc.returncode != 0 and \
            "run it again to finish" in err
        if finished or untouched or partial:
            return None
        return (f"detach {n}: rc {proc.returncode}, paths left {paths}, hold-outs {holdouts} "
                f"(flush {'fails' if flush_fails else 'works'} after {delay} s, SIGTERM at "
                f"{signal_at:.3f} s)\n{out}\n{err}")
    finally:
        t.cleanup()


def main():
    seed = int(os.environ.get("REMOVAL_MODEL_SEED") or random.SystemRandom().randrange(1 << 32))
    worlds = int(os.environ.get("REMOVAL_MODEL_WORLDS", "1000"))
    detaches = int(os.environ.get("REMOVAL_MODEL_DETACHES", "40"))
    print(f"removal model: seed {seed} (REMOVAL_MODEL_SEED={seed} replays it), {worlds} worlds, "
          f"{detaches} detaches", flush=True)
    rng = random.Random(seed)
    failures, deleted, start = [], 0, time.monotonic()
    for n in range(worlds):
        problem, d = run_world(rng, n)
        deleted += d
        if problem:
            failures.append(problem)
    for n in range(detaches):
        problem = run_detach(rng, n)
        if problem:
            failures.append(problem)
    for f in failures[:int(os.environ.get("REMOVAL_MODEL_SHOW", "10"))]:
        print(f"FAIL {f}")
    print(f"removal model: seed {seed}: {worlds} worlds ({deleted} deletions checked), "
          f"{detaches} detaches, in {time.monotonic() - start:.0f} s")
    print(f"{worlds + detaches - len(failures)} passed, {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
