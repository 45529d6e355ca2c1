#!/usr/bin/env python3
"""Shrink the damaged input of a failing case saved by scripts/fuzz_inputs.py (--failures DIR).

A case folder holds case.json (the command, its verdict, the mutated input and a copy of the
valid file it was made from, original/). This script reruns the command on smaller and less
damaged versions of the input and keeps each one on which the SAME failure reproduces:

  * the same verdict class (fuzz_inputs.verdict: sanitizer-in-libhdf5, sanitizer, signal,
    exit-code, ...; a run past --timeout is the class `timeout`), and
  * for a sanitizer report, the same kind of report (`attempting free`, `memcpy-param-overlap`,
    `SEGV`, a leak) and the same top --frames frames inside libhdf5 of its first stack (of a
    leak report: of one of its leaks).

The command runs in this script's environment: a failure of libhdf5 itself, which attend's
HDF5 guard turns into an exit 2, reproduces only with the guard off (ATTEND_HDF5_GUARD=0, as
the fuzzer run that found it).

The search is delta debugging (Zeller and Hildebrandt, "Simplifying and isolating
failure-inducing input", IEEE TSE 2002: ddmin) in four passes, each keeping the best file so far:

  1. restore: the differences between the damaged file and the valid one (runs of differing
     bytes; one replaced region where the lengths differ) are the changes; ddmin looks for a
     smallest subset of them that still fails, i.e. moves bytes back to their original values.
     HDF5 files address their objects by file offset, so the smallest difference from a valid
     file is usually more telling than the smallest file.
  2. truncate: cut the tail, in halving steps, while the failure reproduces (an HDF5 file's
     superblock then records the new end of file, else libhdf5 refuses any truncated file).
  3. remove: take out chunks (ddmin's complements), from the end backwards;
  4. zero: overwrite chunks with zero bytes; 3 and 4 run at each chunk size in turn, halving
     from half the file down to one byte, so that a search out of time has done both coarsely.

Passes 1 and 2 change no byte that is not already damaged, so their result is written as
smallest-difference.<ext>; after passes 3 and 4 the result is smallest-file.<ext>. The report
(report.json) gives for each its size and the bytes that differ from the valid file at the same
offset (a truncated file differs only where its own bytes do; an inserted byte moves all that
follow), and the edits of the valid file that the smallest difference keeps (offset, bytes). Probes are cached by content; the search
is deterministic and stops after --seconds (the best file so far is kept).

A run stopped at --timeout is first sent SIGABRT (with ASan's handle_abort=1 its stack shows
where it hung: report.json's `stopped_in`), then killed.

Example:
  scripts/minimise_case.py --attend build-sanitize/apps/attend --seconds 300 /tmp/fuzz/004-contact-model-sanitizer-in-libhdf5
writes /tmp/fuzz/004-.../minimised/{smallest-difference.h5,smallest-file.h5,report.json}.
"""

import argparse
import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from fuzz_inputs import ROOT, verdict  # noqa: E402

ABORT_GRACE_SECONDS = 5
EDITS_SHOWN = 20  # report.json lists the first edits of the smallest difference


# ----------------------------------------------------------------------------- failure signature
def report_kind(err):
    """The headline of the first sanitizer report: 'attempting free', 'memcpy-param-overlap',
    'SEGV', 'leak', or a UBSan 'runtime error' with numbers dropped; '' when there is none."""
    m = re.search(r"ERROR: (?:AddressSanitizer|UndefinedBehaviorSanitizer): ([\w-]+(?: [\w-]+)?)", err)
    if m:
        words = m.group(1).split()
        return words[0] if words[0] != "attempting" else " ".join(words)
    if "LeakSanitizer" in err:
        return "leak"
    m = re.search(r"runtime error: (.*)", err)
    return re.sub(r"\d+|'[^']*'", "N", m.group(1))[:80] if m else ""


def stacks(err):
    """The stacks of a sanitizer report, each a list of (function, module or source) frames."""
    found, current = [], None
    for line in err.splitlines():
        named = re.match(r"\s*#(\d+) 0x[0-9a-f]+ in (\S+) (.*)", line)
        bare = re.match(r"\s*#(\d+) 0x[0-9a-f]+\s+\((\S+)\)", line)  # no symbol: module+offset
        if not (named or bare):
            continue
        number, frame = (named.group(1), named.group(2, 3)) if named else (bare.group(1), (bare.group(2), bare.group(2)))
        if number == "0":
            current = []
            found.append(current)
        if current is not None:
            current.append(frame)
    return found


def libhdf5_frames(stack, count):
    """The first `count` frames of `stack` inside libhdf5, by function name."""
    return tuple(f for f, where in stack if "libhdf5" in where)[:count]


class Outcome:
    """What one run did: its verdict class, report kind and the libhdf5 frame tuples it offers
    (the first stack's; for a leak, every leak's)."""

    def __init__(self, category, kind="", frame_sets=(), stopped_in=(), named_frames=()):
        self.category, self.kind, self.frame_sets, self.stopped_in = category, kind, frame_sets, stopped_in
        self.named_frames = list(named_frames)  # the first stack's named libhdf5 functions, for the report

    def reproduces(self, target):
        return (self.category == target.category and self.kind == target.kind
                and (not target.frame_sets or target.frame_sets[0] in self.frame_sets))

    def describe(self):
        frames = " < ".join(self.frame_sets[0]) if self.frame_sets else ""
        return " ".join(x for x in (self.category, self.kind, frames and f"in {frames}") if x)


def outcome(rc, err, out_dir, names, frames):
    every = stacks(err)
    named = [f for f, where in (every or [[]])[0] if "libhdf5" in where and "+0x" not in f]
    if rc == "timeout":
        return Outcome("timeout", stopped_in=named)
    found = verdict(rc, err, out_dir, names)
    if not found:
        return None
    kind = report_kind(err)
    sets = tuple(libhdf5_frames(s, frames) for s in (every if kind == "leak" else every[:1]))
    return Outcome(found[0], kind, tuple(s for s in sets if s), named_frames=named)


# ----------------------------------------------------------------------------- running
class Prober:
    """Runs the case's command with a candidate input; caches outcomes by content."""

    def __init__(self, case, record, attend, timeout, frames, deadline):
        self.record, self.attend, self.timeout, self.frames, self.deadline = record, attend, timeout, frames, deadline
        self.work = Path(tempfile.mkdtemp(prefix="attend-minimise-"))
        shutil.copytree(case / "in", self.work / "in", symlinks=True)
        self.input = self.work / record["input"]
        self.names = {self.input.name}
        self.cache, self.runs, self.target = {}, 0, None

    def close(self):
        shutil.rmtree(self.work, ignore_errors=True)

    def out_of_time(self):
        return time.time() >= self.deadline

    def run(self, data):
        key = hashlib.sha256(data).digest()
        if key not in self.cache:
            self.input.write_bytes(data)
            out = self.work / "out"
            shutil.rmtree(out, ignore_errors=True)
            out.mkdir()
            rc, err = self.execute()
            self.cache[key] = outcome(rc, err, out, self.names, self.frames)
            self.runs += 1
        return self.cache[key]

    def execute(self):
        env = dict(os.environ, OMP_NUM_THREADS="1", OMP_WAIT_POLICY="passive",
                   ASAN_OPTIONS="detect_leaks=1:allocator_may_return_null=1:max_allocation_size_mb=3000:handle_abort=1",
                   UBSAN_OPTIONS="print_stacktrace=1")
        proc = subprocess.Popen([self.attend] + self.record["argv"], cwd=self.work, env=env,
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
        try:
            _, err = proc.communicate(timeout=self.timeout)
            return proc.returncode, err.decode(errors="replace")
        except subprocess.TimeoutExpired:
            proc.send_signal(signal.SIGABRT)  # its stack: where it hung
            try:
                _, err = proc.communicate(timeout=ABORT_GRACE_SECONDS)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                _, err = proc.communicate()
            try:
                os.killpg(proc.pid, signal.SIGKILL)  # anything it started
            except ProcessLookupError:
                pass
            return "timeout", err.decode(errors="replace")

    def fails(self, data):
        """Whether the target failure reproduces on `data` (False once out of time)."""
        if self.out_of_time():
            return False
        found = self.run(data)
        return bool(found and found.reproduces(self.target))


# ----------------------------------------------------------------------------- the passes
def ddmin(items, test, prober):
    """Zeller's ddmin: a subset of `items` (kept in order) on which `test` holds, 1-minimal
    when time allows (removing any one item makes `test` fail). `test(items)` must hold."""
    n = 2
    while len(items) >= 2 and not prober.out_of_time():
        size = -(-len(items) // n)
        chunks = [items[i:i + size] for i in range(0, len(items), size)]
        reduced = False
        for i, chunk in enumerate(chunks):
            if test(chunk):  # a subset fails on its own
                items, n, reduced = chunk, 2, True
                break
        if not reduced and n > 2:
            for i in range(len(chunks)):
                rest = [x for j, c in enumerate(chunks) if j != i for x in c]
                if test(rest):  # a complement fails
                    items, n, reduced = rest, max(n - 1, 2), True
                    break
        if not reduced:
            if n >= len(items):
                break
            n = min(n * 2, len(items))
    if len(items) == 1 and test([]):
        return []
    return items


def changes_between(original, damaged):
    """The edits that turn `original` into `damaged`: (start, end, bytes) replacing
    original[start:end]. Equal lengths: one per run of differing bytes. Otherwise: the region
    between the common prefix and the common suffix, as one edit."""
    if len(original) == len(damaged):
        edits, i = [], 0
        while i < len(original):
            if original[i] != damaged[i]:
                j = i
                while j < len(original) and original[j] != damaged[j]:
                    j += 1
                edits.extend((k, k + 1, damaged[k:k + 1]) for k in range(i, j))
                i = j
            else:
                i += 1
        return edits
    prefix = 0
    while prefix < min(len(original), len(damaged)) and original[prefix] == damaged[prefix]:
        prefix += 1
    suffix = 0
    while (suffix < min(len(original), len(damaged)) - prefix
           and original[-1 - suffix] == damaged[-1 - suffix]):
        suffix += 1
    return [(prefix, len(original) - suffix, damaged[prefix:len(damaged) - suffix])]


def apply_changes(original, edits):
    out, at = bytearray(), 0
    for start, end, replacement in sorted(edits):
        out += original[at:start] + replacement
        at = end
    return bytes(out + original[at:])


def restore_pass(original, damaged, prober):
    """Returns (the file, the edits of the original it keeps)."""
    edits = changes_between(original, damaged)
    kept = ddmin(edits, lambda subset: prober.fails(apply_changes(original, subset)), prober)
    return apply_changes(original, kept), kept


HDF5_SIGNATURE = b"\x89HDF\r\n\x1a\n"
HDF5_EOF_FIELD = {0: 40, 1: 44}  # superblock version -> offset of the end-of-file address


def cut(data, length):
    """`data` truncated to `length` bytes. An HDF5 file (superblock version 0 or 1, 8-byte
    addresses, at offset 0) gets `length` as its end-of-file address too: libhdf5 refuses a
    file shorter than the address its superblock records. Versions 2 and 3 carry a checksum
    and are cut as they are."""
    out = bytearray(data[:length])
    at = HDF5_EOF_FIELD.get(data[8]) if data[:8] == HDF5_SIGNATURE and len(data) > 13 else None
    if at is not None and data[13] == 8 and length >= at + 8:
        out[at:at + 8] = length.to_bytes(8, "little")
    return bytes(out)


def truncate_pass(data, prober):
    step = len(data) // 2
    while step >= 1 and not prober.out_of_time():
        while len(data) > step and prober.fails(cut(data, len(data) - step)):
            data = cut(data, len(data) - step)
        step //= 2
    return data


def chunk_sweep(data, prober, size, edit):
    """Try `edit(data, offset, size)` on each chunk of `size` bytes, from the end backwards."""
    offset = len(data) - size
    while offset >= 0 and not prober.out_of_time():
        candidate = edit(data, offset, size)
        if candidate is not None and prober.fails(candidate):
            data = candidate
        offset -= size
    return data


def chunk_pass(data, prober):
    """Passes 3 and 4 at each chunk size, halving from half the file down to one byte: remove
    chunks, then zero chunks (so that, out of time, both have run at the coarser sizes)."""
    size = max(len(data) // 2, 1)
    while size >= 1 and not prober.out_of_time():
        data = chunk_sweep(data, prober, size, remove_chunk)
        data = chunk_sweep(data, prober, size, zero_chunk)
        size //= 2
    return data


def remove_chunk(data, offset, size):
    return data[:offset] + data[offset + size:] if offset + size <= len(data) else None


def zero_chunk(data, offset, size):
    chunk = data[offset:offset + size]
    return None if not chunk.strip(b"\0") else data[:offset] + bytes(len(chunk)) + data[offset + size:]


def differing_bytes(candidate, original):
    """Bytes of `candidate` that are not the valid file's byte at the same offset."""
    shared = min(len(candidate), len(original))
    return sum(a != b for a, b in zip(candidate[:shared], original[:shared])) + max(len(candidate) - len(original), 0)


# ----------------------------------------------------------------------------- main
def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("case", help="a case folder saved by fuzz_inputs.py --failures (it holds case.json)")
    parser.add_argument("--attend", default=str(ROOT / "build-sanitize" / "apps" / "attend"),
                        help="attend binary, the build the case failed on (default: build-sanitize/apps/attend)")
    parser.add_argument("--seconds", type=float, default=300, help="time budget of the search (wall seconds)")
    parser.add_argument("--timeout", type=float, default=20,
                        help="seconds per run; a run past it is the failure class `timeout`")
    parser.add_argument("--frames", type=int, default=2,
                        help="libhdf5 frames at the top of a sanitizer stack that must stay the same")
    parser.add_argument("--out", default=None, help="output folder (default: CASE/minimised)")
    args = parser.parse_args()

    case = Path(args.case).resolve()
    record_path = case / "case.json"
    if not record_path.is_file():
        sys.exit(f"{record_path}: no such file (save the case with this fuzz_inputs.py)")
    record = json.loads(record_path.read_text())
    if "input" not in record:
        sys.exit(f"{case}: the case has no mutated input file to shrink (an output case, a link or a folder)")
    damaged = (case / record["input"]).read_bytes()
    original = (case / record["original"]).read_bytes()
    attend = str(Path(args.attend).resolve())
    start = time.time()
    prober = Prober(case, record, attend, args.timeout, args.frames, start + args.seconds)
    try:
        target = prober.run(damaged)
        if not target:
            sys.exit(f"{case}: the saved input no longer fails with {attend}")
        prober.target = target
        print(f"target: {target.describe()}", flush=True)
        restored, edits = restore_pass(original, damaged, prober)
        least_different = truncate_pass(restored, prober)
        print(f"smallest difference: {len(least_different)} bytes, "
              f"{differing_bytes(least_different, original)} differ ({prober.runs} runs)", flush=True)
        smallest = chunk_pass(least_different, prober)
        final = prober.run(smallest)
        out = Path(args.out) if args.out else case / "minimised"
        out.mkdir(parents=True, exist_ok=True)
        suffix = Path(record["input"]).suffix
        results = {}
        for name, data in (("smallest-difference", least_different), ("smallest-file", smallest)):
            (out / (name + suffix)).write_bytes(data)
            results[name] = {"file": name + suffix, "bytes": len(data),
                             "differing_bytes": differing_bytes(data, original)}
        report = {"case": str(case), "command": record["argv"], "input": record["input"],
                  "failure": target.describe(), "category": target.category, "kind": target.kind,
                  "frames": list(target.frame_sets[0]) if target.frame_sets else [],
                  "libhdf5_functions": target.named_frames,
                  "stopped_in": list(final.stopped_in) if final else [],
                  "damaged": {"bytes": len(damaged), "differing_bytes": differing_bytes(damaged, original)},
                  "original_bytes": len(original), **results,
                  "edits": [{"offset": start, "was": original[start:end].hex(), "now": now.hex()}
                            for start, end, now in edits[:EDITS_SHOWN] if start < len(least_different)],
                  "runs": prober.runs, "seconds": round(time.time() - start, 1),
                  "finished": not prober.out_of_time()}
        (out / "report.json").write_text(json.dumps(report, indent=1) + "\n")
        print(f"smallest file: {len(smallest)} bytes, {differing_bytes(smallest, original)} differ; "
              f"{prober.runs} runs in {report['seconds']} s{'' if report['finished'] else ' (out of time)'}\n"
              f"wrote {out}")
    finally:
        prober.close()


if __name__ == "__main__":
    main()
