#!/usr/bin/env python3
"""Tests of scripts/minimise_case.py: its edit bookkeeping, ddmin, the four passes against a
known failure condition, and a whole run on a saved case whose `attend` is a stand-in that
prints a sanitizer-style report whose top libhdf5 frame depends on the input's bytes."""

import json
import random
import subprocess
import sys
import tempfile
import textwrap
import unittest
from pathlib import Path

SCRIPTS = Path(__file__).resolve().parents[2] / "scripts"
sys.path.insert(0, str(SCRIPTS))
import minimise_case as mc  # noqa: E402


class Stub:
    """A prober whose failure is a predicate on the bytes."""

    def __init__(self, predicate):
        self.predicate, self.runs = predicate, 0

    def out_of_time(self):
        return False

    def fails(self, data):
        self.runs += 1
        return self.predicate(data)


class Edits(unittest.TestCase):
    def test_changes_rebuild_both_files(self):
        rng = random.Random(3)
        for _ in range(200):
            original = bytes(rng.randrange(4) for _ in range(rng.randrange(0, 40)))
            damaged = bytearray(original)
            how = rng.randrange(4)
            if how == 0 and damaged:
                for _ in range(rng.randint(1, 5)):
                    damaged[rng.randrange(len(damaged))] = rng.randrange(4)
            elif how == 1:
                at = rng.randrange(len(damaged) + 1)
                damaged[at:at] = bytes(rng.randrange(1, 9))
            elif how == 2 and damaged:
                del damaged[rng.randrange(len(damaged)):]
            elif damaged:
                at = rng.randrange(len(damaged))
                del damaged[at:at + rng.randint(1, 5)]
            edits = mc.changes_between(original, bytes(damaged))
            self.assertEqual(mc.apply_changes(original, edits), bytes(damaged))
            self.assertEqual(mc.apply_changes(original, []), original)

    def test_differing_bytes_counts_by_offset(self):
        self.assertEqual(mc.differing_bytes(b"abc", b"abcdef"), 0)  # a truncation
        self.assertEqual(mc.differing_bytes(b"aXcdefYZ", b"abcdef"), 3)  # one changed, two added


    def test_a_cut_hdf5_file_records_its_new_end(self):
        superblock = bytearray(mc.HDF5_SIGNATURE + bytes([0, 0, 0, 0, 0, 8, 8, 0]) + bytes(48))
        superblock[40:48] = (100).to_bytes(8, "little")
        data = bytes(superblock) + bytes(range(44))  # 100 bytes
        cut = mc.cut(data, 70)
        self.assertEqual(len(cut), 70)
        self.assertEqual(int.from_bytes(cut[40:48], "little"), 70)
        self.assertEqual(cut[:40] + cut[48:], data[:40] + data[48:70])
        self.assertEqual(mc.cut(b"plain text, no superblock", 5), b"plain")


class DeltaDebugging(unittest.TestCase):
    def test_ddmin_finds_the_three_items_that_matter(self):
        needed = {3, 57, 90}
        stub = Stub(None)
        kept = mc.ddmin(list(range(100)), lambda items: needed <= set(items), stub)
        self.assertEqual(kept, [3, 57, 90])

    def test_passes_restore_truncate_remove_and_zero(self):
        rng = random.Random(11)
        original = bytearray(rng.randrange(1, 256) for _ in range(300))
        original[40], original[250] = 0x11, 0x22
        damaged = bytearray(original)
        for at in rng.sample(range(300), 20):
            damaged[at] ^= 0x5A
        damaged[40], damaged[250] = 0xAB, 0xCD
        original, damaged = bytes(original), bytes(damaged)
        fails = Stub(lambda d: len(d) > 250 and d[40] == 0xAB and d[250] == 0xCD)

        restored, edits = mc.restore_pass(original, damaged, fails)
        self.assertEqual(edits, [(40, 41, b"\xab"), (250, 251, b"\xcd")])
        self.assertEqual(mc.differing_bytes(restored, original), 2)
        cut = mc.truncate_pass(restored, fails)
        self.assertEqual(len(cut), 251)
        self.assertEqual(cut, restored[:251])
        smallest = mc.chunk_pass(cut, fails)
        # Removing any byte before offset 250 moves it; every other byte can be zero.
        self.assertEqual(len(smallest), 251)
        self.assertEqual((smallest[40], smallest[250]), (0xAB, 0xCD))
        self.assertEqual(smallest.count(0), 249)


FAKE_ATTEND = textwrap.dedent('''\
    #!/usr/bin/env python3
    # Stands in for attend: a report in libhdf5 whose top frame depends on bytes 5 and 30.
    import sys
    data = open(sys.argv[sys.argv.index("--msa") + 1], "rb").read()
    if len(data) > 30 and data[5] == 0xAB:
        top = "H5A__read" if data[30] == 0xCD else "H5Z_other"
        sys.stderr.write("==1==ERROR: AddressSanitizer: SEGV on unknown address 0x0\\n"
                         f"    #0 0x7f01 in {top} (/lib/x86_64-linux-gnu/libhdf5_serial.so.103+0x10)\\n"
                         "    #1 0x7f02 in H5HG_read (/lib/x86_64-linux-gnu/libhdf5_serial.so.103+0x20)\\n"
                         "    #2 0x7f03  (/lib/x86_64-linux-gnu/libhdf5_serial.so.103+0x28)\\n"
                         "    #3 0x5501 in attend::Hdf5File::read (/build/attend+0x30)\\n")
        sys.exit(1)
    ''')


class WholeCase(unittest.TestCase):
    def test_a_saved_case_shrinks_to_the_bytes_of_its_own_signature(self):
        with tempfile.TemporaryDirectory() as tmp:
            tmp = Path(tmp)
            attend = tmp / "attend"
            attend.write_text(FAKE_ATTEND)
            attend.chmod(0o755)
            case = tmp / "001-alignment-h5-sanitizer-in-libhdf5"
            (case / "in").mkdir(parents=True)
            (case / "original").mkdir()
            original = bytes(range(1, 41))
            damaged = bytearray(original)
            damaged[5], damaged[30], damaged[12], damaged[20] = 0xAB, 0xCD, 0xEE, 0xEF
            (case / "original" / "x.h5").write_bytes(original)
            (case / "in" / "x.h5").write_bytes(bytes(damaged))
            (case / "case.json").write_text(json.dumps({
                "kind": "alignment-h5", "category": "sanitizer-in-libhdf5", "symptom": "", "timeout": 60,
                "argv": ["contacts", "predict", "--msa", "./in/x.h5", "--out", "./out/p"],
                "input": "in/x.h5", "original": "original/x.h5"}))
            done = subprocess.run([sys.executable, str(SCRIPTS / "minimise_case.py"), "--attend", str(attend),
                                   "--seconds", "120", str(case)], capture_output=True, text=True)
            self.assertEqual(done.returncode, 0, done.stderr)
            report = json.loads((case / "minimised" / "report.json").read_text())
            self.assertEqual(report["category"], "sanitizer-in-libhdf5")
            self.assertEqual(report["kind"], "SEGV")
            self.assertEqual(report["frames"], ["H5A__read", "H5HG_read"])
            self.assertEqual(report["libhdf5_functions"], ["H5A__read", "H5HG_read"])
            self.assertEqual(report["edits"], [{"offset": 5, "was": "06", "now": "ab"},
                                               {"offset": 30, "was": "1f", "now": "cd"}])
            self.assertTrue(report["finished"])
            # Byte 30 stays: without it the report's top frame is another function.
            least = (case / "minimised" / "smallest-difference.h5").read_bytes()
            self.assertEqual(least, original[:5] + b"\xab" + original[6:30] + b"\xcd")
            self.assertEqual(report["smallest-difference"], {"file": "smallest-difference.h5", "bytes": 31,
                                                             "differing_bytes": 2})
            smallest = (case / "minimised" / "smallest-file.h5").read_bytes()
            self.assertEqual(smallest, bytes(5) + b"\xab" + bytes(24) + b"\xcd")


if __name__ == "__main__":
    unittest.main()
