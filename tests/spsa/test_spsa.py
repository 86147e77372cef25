#!/usr/bin/env python3
"""The SPSA runner's algorithm on made-up results, without an engine:
OpenBench's schedule, the step's size and direction, bounds, and a resumed
state that goes on exactly as an unbroken run. `python3 tests/spsa/test_spsa.py`
(`.ci/run` runs it)."""

import math
import os
import random
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import spsa  # noqa: E402

LINES = [
    "rfp_margin, int, 80, 30, 160, 8, 0.002",
    "lmr_base, int, 75, 0, 150, 8, 0.002",
    "nmp_min_depth, int, 3, 1, 6, 1, 0.002",
]


class Step(unittest.TestCase):
    def state(self, iterations=1000):
        return spsa.new_state(spsa.parse_openbench(LINES), iterations, seed=7)

    def test_schedule_is_openbenchs(self):
        st = self.state(1000)
        p = st["params"][0]
        self.assertAlmostEqual(st["A"], 100.0)
        self.assertAlmostEqual(p["c"], 8 * 1000 ** 0.101)
        self.assertAlmostEqual(p["a"], 0.002 * 64 * (100 + 1000) ** 0.602)
        # At the last iteration c is c_end and a is r_end * c_end^2.
        st["done"] = 999
        steps = spsa.perturbation(st, random.Random(1))
        self.assertAlmostEqual(steps[0]["c"], 8.0)
        self.assertAlmostEqual(steps[0]["a"], 0.002 * 64)

    def test_a_won_pair_moves_each_parameter_toward_plus(self):
        st = self.state()
        steps = spsa.perturbation(st, random.Random(3))
        before = [p["value"] for p in st["params"]]
        for p, s in zip(st["params"], steps):
            # The engine plays the perturbed values, kept within bounds.
            def clamp(v):
                return min(max(v, p["min"]), p["max"])
            self.assertAlmostEqual(s["plus"], clamp(p["value"] + s["sign"] * s["c"]))
            self.assertAlmostEqual(s["minus"], clamp(p["value"] - s["sign"] * s["c"]))
        spsa.apply_result(st, steps, wins=2, losses=0, draws=0)
        for b, p, s in zip(before, st["params"], steps):
            expected = b + s["a"] * 2 / s["c"] * s["sign"]
            self.assertAlmostEqual(p["value"], expected)
            self.assertEqual(math.copysign(1, p["value"] - b), s["sign"])
        self.assertEqual((st["done"], st["wins"], st["losses"]), (1, 2, 0))

    def test_a_lost_pair_moves_away_and_a_drawn_one_not_at_all(self):
        st = self.state()
        steps = spsa.perturbation(st, random.Random(4))
        before = [p["value"] for p in st["params"]]
        spsa.apply_result(st, steps, wins=0, losses=1, draws=1)
        for b, p, s in zip(before, st["params"], steps):
            self.assertAlmostEqual(p["value"], b - s["a"] / s["c"] * s["sign"])
        steps = spsa.perturbation(st, random.Random(5))
        before = [p["value"] for p in st["params"]]
        spsa.apply_result(st, steps, wins=1, losses=1, draws=0)
        self.assertEqual([p["value"] for p in st["params"]], before)

    def test_values_stay_within_bounds(self):
        st = self.state(10)
        rng = random.Random(6)
        for _ in range(10):
            steps = spsa.perturbation(st, rng)
            for p, s in zip(st["params"], steps):
                self.assertTrue(p["min"] <= s["plus"] <= p["max"])
                self.assertTrue(p["min"] <= s["minus"] <= p["max"])
            # Always the plus side wins: every value runs to a bound.
            spsa.apply_result(st, steps, wins=2, losses=0, draws=0)
        for p in st["params"]:
            self.assertTrue(p["min"] <= p["value"] <= p["max"])
        self.assertEqual(spsa.engine_value(st["params"][2], 2.5001), 3)

    def test_a_resumed_run_goes_on_as_an_unbroken_one(self):
        results = [(2, 0, 0), (0, 1, 1), (1, 0, 1), (0, 2, 0), (1, 1, 0), (2, 0, 0)]

        def run(st, rng, rs):
            for w, l, d in rs:
                spsa.apply_result(st, spsa.perturbation(st, rng), w, l, d)

        whole = self.state()
        run(whole, random.Random(whole["seed"]), results)
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "state.json")
            st = self.state()
            rng = random.Random(st["seed"])
            run(st, rng, results[:3])
            spsa.save(st, path, rng)
            st, rng = spsa.load(path)
            run(st, rng, results[3:])
        self.assertEqual([p["value"] for p in st["params"]], [p["value"] for p in whole["params"]])
        self.assertEqual(st["done"], 6)

    def test_bad_lines_are_refused(self):
        for bad in ["x, int, 5, 10, 20, 1, 0.002", "x, int, 5, 0, 10", "x, str, 5, 0, 10, 1, 0.002"]:
            with self.assertRaises(ValueError):
                spsa.parse_openbench([bad])


class Apply(unittest.TestCase):
    SOURCE = (
        "params! {\n"
        "    /// The margin.\n"
        "    rfp_margin = 80, 30..=160, step 8;\n"
        "    lmr_base = 75, 0..=150, step 8;\n"
        "    nmp_min_depth = 3, 1..=6, step 1;\n"
        "    time_soft_share = 65, 40..=90, step 4;\n"
        "}\n"
    )

    def test_values_become_the_rounded_defaults(self):
        st = spsa.new_state(spsa.parse_openbench(LINES), 1000, seed=7)
        st["params"][0]["value"] = 91.6
        st["params"][1]["value"] = 74.7
        st["params"][2]["value"] = 2.4
        text, changes = spsa.apply_to_source(st, self.SOURCE)
        self.assertIn("    rfp_margin = 92, 30..=160, step 8;\n", text)
        self.assertIn("    lmr_base = 75, 0..=150, step 8;\n", text)
        self.assertIn("    nmp_min_depth = 2, 1..=6, step 1;\n", text)
        # What the state does not tune is left as it was.
        self.assertIn("    time_soft_share = 65, 40..=90, step 4;\n", text)
        self.assertEqual(changes, [("rfp_margin", 80, 92), ("nmp_min_depth", 3, 2)])

    def test_a_parameter_the_source_lacks_is_an_error(self):
        st = spsa.new_state(spsa.parse_openbench(LINES + ["gone, int, 5, 0, 10, 1, 0.002"]), 1000, seed=7)
        with self.assertRaises(ValueError):
            spsa.apply_to_source(st, self.SOURCE)


if __name__ == "__main__":
    unittest.main()
