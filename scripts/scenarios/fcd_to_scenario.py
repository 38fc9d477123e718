#!/usr/bin/env python3
"""Converts a SUMO FCD trajectory file into an augur scenario (docs/scenario-format.md).

    fcd_to_scenario.py --fcd fcd.xml --net net.xml --vtypes vtypes.add.xml --out DIR
                       [--name NAME] [--seed N] [--begin-s T] [--end-s T]

Writes DIR/scenario.csv (ground truth per vehicle per step), DIR/vehicles.csv (numeric id ↔ SUMO id)
and copies the network to DIR/map.net.xml. Frame: the SUMO network's metric frame (x east, y north,
metres). Conversions (SUMO → augur):
  * position: SUMO reports the centre of the front bumper; we write the centre of the vehicle's
    footprint, i.e. the front point moved back by length/2 along the heading;
  * heading: SUMO's angle is in degrees clockwise from north; ours is radians counter-clockwise from
    +x (east), wrapped into (-pi, pi];
  * ids: SUMO vehicle ids (strings) become 1, 2, 3, ... in order of first appearance;
  * class: from the vType's vClass (passenger/delivery → car, truck, bus, motorcycle, bicycle,
    pedestrian; anything else → unknown).
Standard library only.
"""
import argparse
import math
import os
import re
import sys
import xml.etree.ElementTree as ET

FORMAT_VERSION = 1
VCLASS_TO_CLASS = {"passenger": "car", "private": "car", "taxi": "car", "evehicle": "car", "delivery": "car",
                   "truck": "truck", "trailer": "truck", "bus": "bus", "coach": "bus", "motorcycle": "motorcycle",
                   "moped": "motorcycle", "bicycle": "bicycle", "pedestrian": "pedestrian"}
# SUMO's defaults for a vType without length/width (passenger car).
DEFAULT_LENGTH_M = 5.0
DEFAULT_WIDTH_M = 1.8


def wrap_angle(a):
    """Wraps radians into (-pi, pi]."""
    a = math.fmod(a + math.pi, 2.0 * math.pi)
    if a <= 0.0:
        a += 2.0 * math.pi
    return a - math.pi


def sumo_angle_to_heading(angle_deg):
    return wrap_angle(math.pi / 2.0 - math.radians(angle_deg))


def read_vtypes(path):
    types = {}
    for vt in ET.parse(path).getroot().iter("vType"):
        vclass = vt.get("vClass", "passenger")
        types[vt.get("id")] = (VCLASS_TO_CLASS.get(vclass, "unknown"), float(vt.get("length", DEFAULT_LENGTH_M)),
                               float(vt.get("width", DEFAULT_WIDTH_M)))
    return types


def copy_network(net, target):
    """Copies the SUMO network without netconvert's leading "generated on <date>" comment (which also names
    local paths), so that regenerating a scenario gives byte-identical files."""
    with open(net, encoding="utf-8") as f:
        text = f.read()
    text = re.sub(r"<!-- generated on .*?-->\s*", "<!-- SUMO network written by netconvert (scripts/scenarios/build-scenario) -->\n\n",
                  text, count=1, flags=re.DOTALL)
    with open(target, "w", encoding="utf-8") as f:
        f.write(text)


def convert(fcd, net, vtypes_path, out, name, seed, begin_s, end_s, sumo_version="unknown"):
    types = read_vtypes(vtypes_path)
    os.makedirs(out, exist_ok=True)
    ids = {}  # SUMO id -> (numeric id, vtype, first step, last step)
    rows = []
    step_s = None
    first_time = None
    last_time = None
    prev_time = None
    for _, elem in ET.iterparse(fcd, events=("end",)):
        if elem.tag != "timestep":
            continue
        t = float(elem.get("time"))
        if prev_time is not None and step_s is None:
            step_s = round(t - prev_time, 6)
        prev_time = t
        if t < begin_s - 1e-9 or (end_s is not None and t > end_s + 1e-9):
            elem.clear()
            continue
        if first_time is None:
            first_time = t
        last_time = t
        for v in elem.iter("vehicle"):
            sid, vtype = v.get("id"), v.get("type")
            if vtype not in types:
                sys.exit(f"fcd_to_scenario: vehicle {sid} has vType {vtype!r} not in {vtypes_path}")
            cls, length, width = types[vtype]
            heading = sumo_angle_to_heading(float(v.get("angle")))
            x = float(v.get("x")) - 0.5 * length * math.cos(heading)
            y = float(v.get("y")) - 0.5 * length * math.sin(heading)
            rows.append((t, sid, cls, x, y, heading, float(v.get("speed")), length, width))
        elem.clear()
    if step_s is None or first_time is None:
        sys.exit(f"fcd_to_scenario: {fcd} holds fewer than two time steps in the requested window")
    with open(os.path.join(out, "scenario.csv"), "w", encoding="utf-8") as f:
        f.write(f"# augur-scenario {FORMAT_VERSION}\n# name {name}\n# step_s {step_s}\n# map map.net.xml\n"
                f"# seed {seed}\n# source SUMO {sumo_version} fcd-output, simulation time {first_time} s to {last_time} s\n")
        f.write("step,id,class,x_m,y_m,heading_rad,speed_mps,length_m,width_m\n")
        for t, sid, cls, x, y, heading, speed, length, width in rows:
            step = int(round((t - first_time) / step_s))
            if sid not in ids:
                ids[sid] = [len(ids) + 1, None, step, step]
            entry = ids[sid]
            entry[3] = step
            f.write(f"{step},{entry[0]},{cls},{x:.3f},{y:.3f},{heading:.4f},{speed:.3f},{length:.2f},{width:.2f}\n")
    vtype_of = {}
    for _, elem in ET.iterparse(fcd, events=("end",)):
        if elem.tag == "vehicle" and elem.get("id") in ids and elem.get("id") not in vtype_of:
            vtype_of[elem.get("id")] = elem.get("type")
        if elem.tag == "timestep":
            elem.clear()
    with open(os.path.join(out, "vehicles.csv"), "w", encoding="utf-8") as f:
        f.write("id,sumo_id,vtype,first_step,last_step\n")
        for sid, (nid, _, first, last) in sorted(ids.items(), key=lambda kv: kv[1][0]):
            f.write(f"{nid},{sid},{vtype_of[sid]},{first},{last}\n")
    copy_network(net, os.path.join(out, "map.net.xml"))
    return len(rows), len(ids)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--fcd", required=True)
    p.add_argument("--net", required=True)
    p.add_argument("--vtypes", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--name", default="scenario")
    p.add_argument("--seed", default="unknown")
    p.add_argument("--begin-s", type=float, default=0.0, help="first time step written (warm-up before it)")
    p.add_argument("--end-s", type=float, default=None, help="last time step written")
    p.add_argument("--sumo-version", default="unknown")
    a = p.parse_args()
    rows, vehicles = convert(a.fcd, a.net, a.vtypes, a.out, a.name, a.seed, a.begin_s, a.end_s, a.sumo_version)
    print(f"fcd_to_scenario: {rows} states of {vehicles} vehicles -> {a.out}")


if __name__ == "__main__":
    main()
