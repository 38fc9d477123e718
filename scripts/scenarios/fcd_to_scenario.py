#!/usr/bin/env python3
"""Converts a SUMO FCD trajectory file into an augur scenario (docs/scenario-format.md).

    fcd_to_scenario.py --fcd fcd.xml --net net.xml --out DIR [--vtypes FILE ...]
                       [--name NAME] [--seed N] [--begin-s T] [--end-s T]

--vtypes names files that define vTypes (additional or route files; any number, none is fine).

Writes DIR/scenario.csv (ground truth per vehicle per step), DIR/vehicles.csv (numeric id ↔ SUMO id)
and copies the network to DIR/map.net.xml. Frame: the SUMO network's metric frame (x east, y north,
metres). Conversions (SUMO → augur):
  * position: SUMO reports the centre of the front bumper; we write the centre of the vehicle's
    footprint, i.e. the front point moved back by length/2 along the heading;
  * heading: SUMO's angle is in degrees clockwise from north; ours is radians counter-clockwise from
    +x (east), wrapped into (-pi, pi];
  * ids: SUMO vehicle ids (strings) become 1, 2, 3, ... in order of first appearance;
  * class: from the vType's vClass (passenger/delivery → car, truck, bus, motorcycle, bicycle,
    pedestrian; anything else → unknown); a vType with no vClass by its guiShape. A vType that no
    --vtypes file defines is resolved as SUMO itself would: its built-in types (DEFAULT_VEHTYPE,
    DEFAULT_PEDTYPE, DEFAULT_BIKETYPE, DEFAULT_TAXITYPE, ...) with SUMO's default sizes, else by the
    vClass or shape its id names (e.g. "bus_line3" → bus, "ped1" → pedestrian), else a passenger car;
    each such guess is reported on stderr. Persons (FCD <person> elements) become pedestrians.
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
# SUMO's default size per vClass (SUMO documentation, "Vehicle Type Parameter Defaults").
VCLASS_SIZE_M = {"passenger": (5.0, 1.8), "private": (5.0, 1.8), "taxi": (5.0, 1.8), "evehicle": (5.0, 1.8),
                 "delivery": (6.5, 2.16), "truck": (7.1, 2.4), "trailer": (16.5, 2.55), "bus": (12.0, 2.5),
                 "coach": (14.0, 2.6), "motorcycle": (2.2, 0.9), "moped": (2.1, 0.8), "bicycle": (1.6, 0.65),
                 "pedestrian": (0.215, 0.478)}
# SUMO's built-in vTypes, used when a route file names them without defining them.
SUMO_BUILTIN_VTYPES = {"DEFAULT_VEHTYPE": "passenger", "DEFAULT_PEDTYPE": "pedestrian", "DEFAULT_BIKETYPE": "bicycle",
                       "DEFAULT_TAXITYPE": "taxi", "DEFAULT_CONTAINERTYPE": "passenger", "DEFAULT_RAILTYPE": "rail"}
# guiShape → vClass, for vTypes that give a shape but no class.
SHAPE_TO_VCLASS = [("pedestrian", "pedestrian"), ("bicycle", "bicycle"), ("moped", "moped"), ("motorcycle", "motorcycle"),
                   ("scooter", "moped"), ("bus", "bus"), ("truck", "truck"), ("trailer", "trailer"),
                   ("delivery", "delivery"), ("emergency", "delivery"), ("firebrigade", "truck"), ("taxi", "taxi"),
                   ("passenger", "passenger"), ("evehicle", "evehicle")]
# Words that start a word of a vType id and name its class, checked in this order (the id is split at
# non-letters and lower-to-upper case changes, then case-folded: "cityBus_L3" → city, bus, l).
ID_WORDS_TO_VCLASS = [("ped", "pedestrian"), ("person", "pedestrian"), ("walk", "pedestrian"), ("bike", "bicycle"),
                      ("bicycle", "bicycle"), ("cycl", "bicycle"), ("moped", "moped"), ("scooter", "moped"),
                      ("motor", "motorcycle"), ("moto", "motorcycle"), ("coach", "coach"), ("bus", "bus"),
                      ("trailer", "trailer"), ("truck", "truck"), ("lorry", "truck"), ("hgv", "truck"),
                      ("van", "delivery"), ("delivery", "delivery"), ("taxi", "taxi")]


def vtype_entry(vclass, length=None, width=None):
    """(class, length, width) of a vType of `vclass`, sizes defaulting to SUMO's for the class."""
    default_length, default_width = VCLASS_SIZE_M.get(vclass, (DEFAULT_LENGTH_M, DEFAULT_WIDTH_M))
    return (VCLASS_TO_CLASS.get(vclass, "unknown"), float(length) if length is not None else default_length,
            float(width) if width is not None else default_width)


def guess_vclass(vtype_id):
    """The vClass of a vType no file defines: SUMO's built-in types, then words in its id, else passenger."""
    if vtype_id in SUMO_BUILTIN_VTYPES:
        return SUMO_BUILTIN_VTYPES[vtype_id], False
    words = [w.lower() for w in re.findall(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])", vtype_id or "")]
    for word, vclass in ID_WORDS_TO_VCLASS:
        if any(w.startswith(word) for w in words):
            return vclass, True
    return "passenger", True


def wrap_angle(a):
    """Wraps radians into (-pi, pi]."""
    a = math.fmod(a + math.pi, 2.0 * math.pi)
    if a <= 0.0:
        a += 2.0 * math.pi
    return a - math.pi


def sumo_angle_to_heading(angle_deg):
    return wrap_angle(math.pi / 2.0 - math.radians(angle_deg))


def read_vtypes(paths):
    """vType id → (class, length, width) from every vType defined in `paths` (a path or a list of them)."""
    types = {}
    for path in [paths] if isinstance(paths, str) else (paths or []):
        for vt in ET.parse(path).getroot().iter("vType"):
            vclass = vt.get("vClass")
            if vclass is None:
                shape = (vt.get("guiShape") or "").lower()
                vclass = next((c for word, c in SHAPE_TO_VCLASS if word in shape), "passenger")
            types[vt.get("id")] = vtype_entry(vclass, vt.get("length"), vt.get("width"))
    return types


def resolve_vtype(types, vtype_id, sid, is_person=False):
    """The (class, length, width) of `vtype_id`, adding a guess to `types` (reported once) when no file defines it."""
    if vtype_id in types:
        return types[vtype_id]
    if is_person and vtype_id not in SUMO_BUILTIN_VTYPES:
        vclass, guessed = "pedestrian", False
    else:
        vclass, guessed = guess_vclass(vtype_id)
    types[vtype_id] = vtype_entry(vclass)
    how = f"guessed from its id as {vclass}" if guessed else f"SUMO's built-in {vclass} type"
    print(f"fcd_to_scenario: vType {vtype_id!r} (first used by {sid}) is defined in no --vtypes file: {how}, "
          f"{types[vtype_id][1]:g} x {types[vtype_id][2]:g} m", file=sys.stderr)
    return types[vtype_id]


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
    ids_seen_as_vehicle = set()
    vtype_of = {}
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
        for v in elem:
            if v.tag not in ("vehicle", "person"):
                continue
            sid, vtype = v.get("id"), v.get("type")
            if v.tag == "person":
                sid = f"person:{sid}" if sid in ids_seen_as_vehicle else sid
                vtype = vtype or "DEFAULT_PEDTYPE"
            else:
                ids_seen_as_vehicle.add(sid)
            cls, length, width = resolve_vtype(types, vtype, sid, v.tag == "person")
            vtype_of.setdefault(sid, vtype)
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
    p.add_argument("--vtypes", nargs="*", action="extend", default=[],
                   help="files defining vTypes (additional or route files); unknown types are resolved by class")
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
