#!/usr/bin/env python3
"""The SUMO → scenario converter (scripts/scenarios) against a tiny SUMO run made here.

Builds a 10 s intersection scenario with build-scenario (netconvert, randomTrips.py, sumo) and checks
the scenario files against the raw FCD output. Needs SUMO: a missing sumo/netconvert FAILS the test
(the bench cannot be qualified without it); install it with scripts/install-deps.
"""
import csv
import math
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ET

SOURCE_DIR = os.environ.get("AUGUR_SOURCE_DIR", os.path.abspath(os.path.join(os.path.dirname(__file__), "../../..")))
SCRIPTS = os.path.join(SOURCE_DIR, "scripts", "scenarios")
sys.path.insert(0, SCRIPTS)
import fcd_to_scenario  # noqa: E402
import lanelet2_to_plain  # noqa: E402

SEED = 7
WARMUP_S = 5.0
DURATION_S = 10.0
STEP_S = 0.1
POSITION_TOLERANCE_M = 1e-3  # the scenario keeps millimetres


def read_scenario(path):
    with open(path, encoding="utf-8") as f:
        lines = f.read().splitlines()
    header = {}
    body = []
    for line in lines:
        if line.startswith("#"):
            key, _, value = line[1:].strip().partition(" ")
            header[key] = value
        else:
            body.append(line)
    return header, list(csv.DictReader(body))


class ConversionFormulas(unittest.TestCase):
    def test_sumo_angle_becomes_counter_clockwise_heading_from_east(self):
        cases = {0.0: math.pi / 2, 90.0: 0.0, 180.0: -math.pi / 2, 270.0: math.pi, 45.0: math.pi / 4, 359.0: math.radians(91)}
        for angle_deg, heading in cases.items():
            self.assertAlmostEqual(fcd_to_scenario.sumo_angle_to_heading(angle_deg), heading, places=9, msg=angle_deg)

    def test_wrap_angle_keeps_the_half_open_interval(self):
        self.assertAlmostEqual(fcd_to_scenario.wrap_angle(-math.pi), math.pi)
        self.assertAlmostEqual(fcd_to_scenario.wrap_angle(3 * math.pi), math.pi)
        self.assertAlmostEqual(fcd_to_scenario.wrap_angle(0.5), 0.5)


HAND_FCD = """<fcd-export>
  <timestep time="0.00">
    <vehicle id="car0" x="10.0" y="0.0" angle="90.0" type="DEFAULT_VEHTYPE" speed="10.0"/>
    <vehicle id="bike0" x="0.0" y="5.0" angle="90.0" type="DEFAULT_BIKETYPE" speed="4.0"/>
    <vehicle id="b0" x="0.0" y="20.0" angle="90.0" type="cityBus_L3" speed="8.0"/>
    <vehicle id="s0" x="0.0" y="30.0" angle="90.0" type="shaped" speed="8.0"/>
    <vehicle id="x0" x="0.0" y="40.0" angle="90.0" type="mystery" speed="8.0"/>
    <person id="p0" x="3.0" y="-5.0" angle="0.0" type="DEFAULT_PEDTYPE" speed="1.2"/>
  </timestep>
  <timestep time="0.10">
    <vehicle id="car0" x="11.0" y="0.0" angle="90.0" type="DEFAULT_VEHTYPE" speed="10.0"/>
  </timestep>
</fcd-export>
"""
HAND_ROUTES = """<routes>
  <vType id="shaped" guiShape="truck/semitrailer" length="16.0"/>
</routes>
"""


class UnknownVehicleTypes(unittest.TestCase):
    """A user's own SUMO output: SUMO's built-in types and types no file defines are mapped by class."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="augur_fcd_types_")
        self.fcd = os.path.join(self.tmp, "fcd.xml")
        with open(self.fcd, "w", encoding="utf-8") as f:
            f.write(HAND_FCD)
        self.routes = os.path.join(self.tmp, "routes.rou.xml")
        with open(self.routes, "w", encoding="utf-8") as f:
            f.write(HAND_ROUTES)
        self.net = os.path.join(self.tmp, "net.net.xml")
        with open(self.net, "w", encoding="utf-8") as f:
            f.write("<net/>\n")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def convert(self, vtypes):
        out = os.path.join(self.tmp, "scenario")
        fcd_to_scenario.convert(self.fcd, self.net, vtypes, out, "hand", "1", 0.0, None)
        _, rows = read_scenario(os.path.join(out, "scenario.csv"))
        with open(os.path.join(out, "vehicles.csv"), encoding="utf-8") as f:
            vehicles = {r["sumo_id"]: r for r in csv.DictReader(f)}
        return {vehicles[sid]["id"]: sid for sid in vehicles}, rows, vehicles

    def test_builtin_and_undefined_types_are_mapped_by_class_with_sumo_sizes(self):
        sumo_of, rows, vehicles = self.convert([self.routes])
        first = {sumo_of[r["id"]]: r for r in rows if r["step"] == "0"}
        expected = {"car0": ("car", 5.0, 1.8), "bike0": ("bicycle", 1.6, 0.65), "b0": ("bus", 12.0, 2.5),
                    "s0": ("truck", 16.0, 2.4), "x0": ("car", 5.0, 1.8), "p0": ("pedestrian", 0.215, 0.478)}
        for sid, (cls, length, width) in expected.items():
            self.assertEqual(first[sid]["class"], cls, sid)
            self.assertAlmostEqual(float(first[sid]["length_m"]), length, delta=0.006, msg=sid)  # centimetres kept
            self.assertAlmostEqual(float(first[sid]["width_m"]), width, delta=0.006, msg=sid)
        self.assertEqual(vehicles["p0"]["vtype"], "DEFAULT_PEDTYPE")
        self.assertEqual(len(rows), 7)

    def test_class_words_are_whole_words_of_the_id(self):
        self.assertEqual(fcd_to_scenario.guess_vclass("cityBus_L3"), ("bus", True))
        self.assertEqual(fcd_to_scenario.guess_vclass("ped_slow"), ("pedestrian", True))
        self.assertEqual(fcd_to_scenario.guess_vclass("shaped"), ("passenger", True))  # "ped" inside a word
        self.assertEqual(fcd_to_scenario.guess_vclass("DEFAULT_BIKETYPE"), ("bicycle", False))

    def test_no_vtype_file_at_all_still_converts(self):
        _, rows, vehicles = self.convert([])
        self.assertEqual(len(vehicles), 6)
        self.assertEqual(len(rows), 7)


class TinySumoRun(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        for tool in ("sumo", "netconvert"):
            if shutil.which(tool) is None:
                raise AssertionError(f"'{tool}' not found: SUMO is required (scripts/install-deps installs sumo, sumo-tools)")
        cls.tmp = tempfile.mkdtemp(prefix="augur_converter_")
        cls.out = os.path.join(cls.tmp, "a")
        cls.run_builder(cls.out)
        cls.header, cls.rows = read_scenario(os.path.join(cls.out, "scenario.csv"))
        with open(os.path.join(cls.out, "vehicles.csv"), encoding="utf-8") as f:
            cls.vehicles = list(csv.DictReader(f))

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    @staticmethod
    def run_builder(out):
        subprocess.run([os.path.join(SCRIPTS, "build-scenario"), "intersection", out, "--seed", str(SEED),
                        "--warmup-s", str(WARMUP_S), "--duration-s", str(DURATION_S), "--period-s", "1.5"],
                       check=True, stdout=subprocess.DEVNULL)

    def fcd_states(self):
        """(time, sumo id) -> FCD vehicle attributes, inside the scenario's window."""
        states = {}
        for step in ET.parse(os.path.join(self.out, "work", "fcd.xml")).getroot().iter("timestep"):
            t = float(step.get("time"))
            if WARMUP_S - 1e-9 <= t <= WARMUP_S + DURATION_S + 1e-9:
                for v in step.iter("vehicle"):
                    states[(round(t, 3), v.get("id"))] = v.attrib
        return states

    def test_header_names_format_step_map_and_seed(self):
        self.assertEqual(self.header["augur-scenario"], "1")
        self.assertEqual(float(self.header["step_s"]), STEP_S)
        self.assertEqual(self.header["map"], "map.net.xml")
        self.assertEqual(self.header["seed"], str(SEED))
        self.assertTrue(os.path.exists(os.path.join(self.out, "map.net.xml")))

    def test_every_fcd_state_in_the_window_becomes_one_row(self):
        fcd = self.fcd_states()
        self.assertGreater(len(fcd), 100, "the tiny run should hold traffic")
        self.assertEqual(len(self.rows), len(fcd))
        steps = [int(r["step"]) for r in self.rows]
        self.assertEqual(min(steps), 0)
        self.assertEqual(max(steps), round(DURATION_S / STEP_S) - 1)  # sumo --end is exclusive
        self.assertEqual(steps, sorted(steps))

    def test_rows_hold_the_footprint_centre_and_counter_clockwise_heading(self):
        fcd = self.fcd_states()
        sumo_of = {v["id"]: v["sumo_id"] for v in self.vehicles}
        for r in self.rows:
            v = fcd[(round(WARMUP_S + int(r["step"]) * STEP_S, 3), sumo_of[r["id"]])]
            heading = float(r["heading_rad"])
            length = float(r["length_m"])
            # Independent check of the conventions: moving half a length forward along the heading
            # from the centre must land on SUMO's front-bumper point.
            self.assertAlmostEqual(float(r["x_m"]) + 0.5 * length * math.cos(heading), float(v["x"]), delta=2e-3)
            self.assertAlmostEqual(float(r["y_m"]) + 0.5 * length * math.sin(heading), float(v["y"]), delta=2e-3)
            self.assertAlmostEqual(float(r["speed_mps"]), float(v["speed"]), places=3)

    def test_positions_advance_along_the_heading_at_the_speed(self):
        # Kinematic consistency: Δp/Δt ≈ speed · (cos θ, sin θ) for vehicles driving straight.
        last = {}
        residuals = []
        for r in self.rows:
            vid, step = r["id"], int(r["step"])
            x, y, h, v = float(r["x_m"]), float(r["y_m"]), float(r["heading_rad"]), float(r["speed_mps"])
            if vid in last and last[vid][0] == step - 1 and abs(last[vid][3] - h) < 1e-3 and v > 1.0:
                px, py = last[vid][1], last[vid][2]
                vx, vy = (x - px) / STEP_S, (y - py) / STEP_S
                residuals.append(math.hypot(vx - v * math.cos(h), vy - v * math.sin(h)))
            last[vid] = (step, x, y, h)
        self.assertGreater(len(residuals), 50)
        # SUMO moves by the new speed each step, so the residual is bounded by the speed change (≤ 0.45 m/s
        # for decel 4.5 m/s² over 0.1 s), never the several m/s a wrong axis or sign would give.
        self.assertLess(max(residuals), 0.5)

    def test_ids_are_numbered_by_first_appearance_and_listed_with_their_sumo_ids(self):
        ids = []
        for r in self.rows:
            if r["id"] not in ids:
                ids.append(r["id"])
        self.assertEqual(ids, [str(i) for i in range(1, len(ids) + 1)])
        self.assertEqual([v["id"] for v in self.vehicles], ids)
        for v in self.vehicles:
            steps = [int(r["step"]) for r in self.rows if r["id"] == v["id"]]
            self.assertEqual((int(v["first_step"]), int(v["last_step"])), (min(steps), max(steps)))

    def test_classes_and_sizes_come_from_the_vehicle_types(self):
        sizes = {"car": (4.5, 1.8), "van": (5.5, 2.0), "truck": (9.0, 2.5), "bus": (12.0, 2.5), "motorcycle": (2.2, 0.8)}
        classes = {"car": "car", "van": "car", "truck": "truck", "bus": "bus", "motorcycle": "motorcycle"}
        vtype_of = {v["id"]: v["vtype"] for v in self.vehicles}
        for r in self.rows:
            vtype = vtype_of[r["id"]]
            self.assertEqual(r["class"], classes[vtype])
            self.assertEqual((float(r["length_m"]), float(r["width_m"])), sizes[vtype])

    def test_the_same_seed_rebuilds_identical_files(self):
        again = os.path.join(self.tmp, "b")
        self.run_builder(again)
        for name in ("scenario.csv", "vehicles.csv", "map.net.xml"):
            with open(os.path.join(self.out, name), "rb") as a, open(os.path.join(again, name), "rb") as b:
                self.assertEqual(a.read(), b.read(), name)


class LaneletConversion(unittest.TestCase):
    """lanelet2_to_plain.py on a hand-made Lanelet2 map: three lanelets along y = 0..3.5 m, eastwards."""

    LANE_WIDTH_M = 3.5

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="augur_lanelet2_")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    @staticmethod
    def latlon(x, y):
        lat0, lon0 = lanelet2_to_plain.ORIGIN_LAT_DEG, lanelet2_to_plain.ORIGIN_LON_DEG
        r = lanelet2_to_plain.EARTH_RADIUS_M
        return lat0 + math.degrees(y / r), lon0 + math.degrees(x / (r * math.cos(math.radians(lat0))))

    def write_map(self):
        # Nodes: left bound (north, y = 3.5) 1..4 and right bound (south, y = 0) 11..14 at x = 0, 10, 20, 30.
        nodes = {i + 1: (10.0 * i, self.LANE_WIDTH_M) for i in range(4)}
        nodes.update({i + 11: (10.0 * i, 0.0) for i in range(4)})
        ways = {
            101: [1, 2], 111: [12, 11],   # A: left in driving direction, right stored reversed
            102: [3, 2], 112: [13, 12],   # B: both bounds stored against the driving direction
            103: [3, 4], 113: [13, 14],   # C: bidirectional
            104: [1, 11],                 # not a bound: a stop line
        }
        lanelets = {201: (101, 111, "yes", "road"), 202: (102, 112, "yes", "road"), 203: (103, 113, "no", "road"),
                    204: (101, 111, "yes", "crosswalk")}
        lines = ["<?xml version='1.0' encoding='UTF-8'?>", "<osm version='0.6'>"]
        for nid, (x, y) in nodes.items():
            lat, lon = self.latlon(x, y)
            lines.append(f"  <node id='{nid}' lat='{lat:.12f}' lon='{lon:.12f}' />")
        for wid, refs in ways.items():
            lines.append(f"  <way id='{wid}'>" + "".join(f"<nd ref='{r}' />" for r in refs) + "</way>")
        for rid, (left, right, one_way, subtype) in lanelets.items():
            lines.append(f"  <relation id='{rid}'><member type='way' ref='{left}' role='left' />"
                         f"<member type='way' ref='{right}' role='right' /><tag k='type' v='lanelet' />"
                         f"<tag k='subtype' v='{subtype}' /><tag k='one_way' v='{one_way}' /></relation>")
        lines.append("</osm>")
        path = os.path.join(self.tmp, "map.osm")
        with open(path, "w", encoding="utf-8") as f:
            f.write("\n".join(lines))
        return path

    def convert(self):
        prefix = os.path.join(self.tmp, "out")
        subprocess.run([sys.executable, os.path.join(SCRIPTS, "lanelet2_to_plain.py"), self.write_map(), prefix],
                       check=True, stdout=subprocess.DEVNULL)
        nodes = {n.get("id"): (float(n.get("x")), float(n.get("y")))
                 for n in ET.parse(prefix + ".nod.xml").getroot().iter("node")}
        edges = {e.get("id"): e.attrib for e in ET.parse(prefix + ".edg.xml").getroot().iter("edge")}
        return nodes, edges

    def test_drivable_lanelets_become_edges_and_bidirectional_ones_two(self):
        _, edges = self.convert()
        self.assertEqual(sorted(edges), ["ll201", "ll202", "ll203", "ll203_r"])  # the crosswalk is left out

    def test_edges_run_eastwards_along_the_centre_line_with_the_lane_width(self):
        nodes, edges = self.convert()
        for edge_id in ("ll201", "ll202", "ll203"):
            e = edges[edge_id]
            shape = [tuple(map(float, p.split(","))) for p in e["shape"].split()]
            self.assertLess(shape[0][0], shape[-1][0], edge_id)  # eastwards
            for x, y in shape:
                self.assertAlmostEqual(y, self.LANE_WIDTH_M / 2, delta=0.01)
            self.assertAlmostEqual(float(e["width"]), self.LANE_WIDTH_M, delta=0.01)
            self.assertAlmostEqual(nodes[e["from"]][0] + 10.0, nodes[e["to"]][0], delta=0.01)
        reverse = edges["ll203_r"]
        self.assertEqual((reverse["from"], reverse["to"]), (edges["ll203"]["to"], edges["ll203"]["from"]))

    def test_successive_lanelets_share_a_node(self):
        _, edges = self.convert()
        self.assertEqual(edges["ll201"]["to"], edges["ll202"]["from"])
        self.assertEqual(edges["ll202"]["to"], edges["ll203"]["from"])


if __name__ == "__main__":
    unittest.main(verbosity=2)
