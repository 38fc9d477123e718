#!/usr/bin/env python3
"""Writes the plain-XML network description (nodes, edges, connections) of one HIL scenario kind.

    make_network.py KIND OUTDIR        KIND: intersection | roundabout | roundabout2 | tjunction | tls | highway

netconvert turns the files into the SUMO network that is both the simulator's road network and the
scenario's map. The geometry is fixed (no randomness): seeds only enter through the traffic.
Frame: metres, x east, y north, origin at the junction (intersection, roundabout) or the merge point
(highway); netconvert keeps it because every file is written with offsets of zero.

Kinds:
  intersection  an unsignalised four-way junction with priority rules: the east-west road is the
                priority road (priority 3), the north-south road yields (priority 1); arms of 150 m,
                one lane per direction, 13.89 m/s (50 km/h).
  roundabout    a single-lane roundabout of 25 m radius with four arms of 120 m (two-way, one lane per
                direction); traffic in the ring has right of way (netconvert roundabout rules).
  roundabout2   a two-lane roundabout of 35 m radius with four arms of 150 m, two lanes per direction.
  tjunction     an unsignalised T-junction: the east-west road has priority (3), the southern arm yields
                (priority 1); arms of 150 m, one lane per direction, 50 km/h.
  tls           a signalised four-way junction (netconvert's default fixed-time plan): arms of 150 m,
                two lanes per direction, 50 km/h.
  highway       a one-way two-lane motorway (33.33 m/s) with a single-lane on-ramp (22.22 m/s) joining
                at x = 0 through a 250 m acceleration lane; 500 m upstream and 750 m downstream.
"""
import math
import os
import sys
import xml.etree.ElementTree as ET

SPEED_URBAN_MPS = 13.89
SPEED_MOTORWAY_MPS = 33.33
SPEED_RAMP_MPS = 22.22


def write(root, path):
    ET.indent(root)
    ET.ElementTree(root).write(path, encoding="utf-8", xml_declaration=True)


def node(parent, node_id, x, y, node_type="priority"):
    ET.SubElement(parent, "node", id=node_id, x=f"{x:.3f}", y=f"{y:.3f}", type=node_type)


def edge(parent, edge_id, src, dst, lanes, speed, priority, shape=None):
    attrs = dict(id=edge_id, **{"from": src, "to": dst}, numLanes=str(lanes), speed=f"{speed:.2f}",
                 priority=str(priority))
    if shape:
        attrs["shape"] = " ".join(f"{x:.3f},{y:.3f}" for x, y in shape)
    ET.SubElement(parent, "edge", attrs)


def intersection(nodes, edges, cons):
    arm_m = 150.0
    node(nodes, "C", 0.0, 0.0, "priority")
    arms = {"E": (arm_m, 0.0, 3), "W": (-arm_m, 0.0, 3), "N": (0.0, arm_m, 1), "S": (0.0, -arm_m, 1)}
    for name, (x, y, priority) in arms.items():
        node(nodes, name, x, y, "dead_end")
        edge(edges, f"{name}_in", name, "C", 1, SPEED_URBAN_MPS, priority)
        edge(edges, f"{name}_out", "C", name, 1, SPEED_URBAN_MPS, priority)


def arc(center, radius, a0, a1, pieces):
    """Points on a counter-clockwise arc from angle a0 to a1 (radians), both ends included."""
    if a1 <= a0:
        a1 += 2.0 * math.pi
    return [(center[0] + radius * math.cos(a0 + (a1 - a0) * i / pieces),
             center[1] + radius * math.sin(a0 + (a1 - a0) * i / pieces)) for i in range(pieces + 1)]


def roundabout(nodes, edges, cons):
    radius_m = 25.0
    arm_m = 120.0
    names = ["E", "N", "W", "S"]  # counter-clockwise, as traffic drives the ring (right-hand traffic)
    angles = [0.0, math.pi / 2, math.pi, 3 * math.pi / 2]
    for name, a in zip(names, angles):
        node(nodes, f"R{name}", radius_m * math.cos(a), radius_m * math.sin(a), "priority")
        node(nodes, name, (radius_m + arm_m) * math.cos(a), (radius_m + arm_m) * math.sin(a), "dead_end")
        edge(edges, f"{name}_in", name, f"R{name}", 1, SPEED_URBAN_MPS, 1)
        edge(edges, f"{name}_out", f"R{name}", name, 1, SPEED_URBAN_MPS, 1)
    ring_speed_mps = 8.33
    for i, name in enumerate(names):
        nxt = names[(i + 1) % 4]
        shape = arc((0.0, 0.0), radius_m, angles[i], angles[(i + 1) % 4], 12)
        edge(edges, f"ring_{name}{nxt}", f"R{name}", f"R{nxt}", 1, ring_speed_mps, 2, shape)
    # netconvert detects the ring (--roundabouts.guess) and gives the circulating traffic right of way.


def tjunction(nodes, edges, cons):
    arm_m = 150.0
    node(nodes, "C", 0.0, 0.0, "priority")
    for name, (x, y, priority) in {"E": (arm_m, 0.0, 3), "W": (-arm_m, 0.0, 3), "S": (0.0, -arm_m, 1)}.items():
        node(nodes, name, x, y, "dead_end")
        edge(edges, f"{name}_in", name, "C", 1, SPEED_URBAN_MPS, priority)
        edge(edges, f"{name}_out", "C", name, 1, SPEED_URBAN_MPS, priority)


def tls(nodes, edges, cons):
    arm_m = 150.0
    node(nodes, "C", 0.0, 0.0, "traffic_light")
    for name, (x, y) in {"E": (arm_m, 0.0), "W": (-arm_m, 0.0), "N": (0.0, arm_m), "S": (0.0, -arm_m)}.items():
        node(nodes, name, x, y, "dead_end")
        edge(edges, f"{name}_in", name, "C", 2, SPEED_URBAN_MPS, 2)
        edge(edges, f"{name}_out", "C", name, 2, SPEED_URBAN_MPS, 2)


def roundabout2(nodes, edges, cons):
    radius_m = 35.0
    arm_m = 150.0
    names = ["E", "N", "W", "S"]
    angles = [0.0, math.pi / 2, math.pi, 3 * math.pi / 2]
    for name, a in zip(names, angles):
        node(nodes, f"R{name}", radius_m * math.cos(a), radius_m * math.sin(a), "priority")
        node(nodes, name, (radius_m + arm_m) * math.cos(a), (radius_m + arm_m) * math.sin(a), "dead_end")
        edge(edges, f"{name}_in", name, f"R{name}", 2, SPEED_URBAN_MPS, 1)
        edge(edges, f"{name}_out", f"R{name}", name, 2, SPEED_URBAN_MPS, 1)
    ring_speed_mps = 11.11
    for i, name in enumerate(names):
        nxt = names[(i + 1) % 4]
        shape = arc((0.0, 0.0), radius_m, angles[i], angles[(i + 1) % 4], 16)
        edge(edges, f"ring_{name}{nxt}", f"R{name}", f"R{nxt}", 2, ring_speed_mps, 2, shape)


def highway(nodes, edges, cons):
    node(nodes, "A", -500.0, 0.0)
    node(nodes, "R0", -400.0, -80.0)
    node(nodes, "M", 0.0, 0.0)
    node(nodes, "X", 250.0, 0.0)
    node(nodes, "B", 750.0, 0.0)
    edge(edges, "main_in", "A", "M", 2, SPEED_MOTORWAY_MPS, 3)
    edge(edges, "ramp", "R0", "M", 1, SPEED_RAMP_MPS, 1,
         [(-400.0, -80.0), (-200.0, -30.0), (-100.0, -8.0), (-30.0, -3.5), (0.0, -3.2)])
    edge(edges, "accel", "M", "X", 3, SPEED_MOTORWAY_MPS, 3)
    edge(edges, "main_out", "X", "B", 2, SPEED_MOTORWAY_MPS, 3)
    # Lanes are numbered from the right: the ramp feeds the acceleration lane 0, the motorway lanes
    # continue as 1 and 2; at X lane 0 ends and its traffic must have changed lanes before.
    ET.SubElement(cons, "connection", {"from": "ramp", "to": "accel", "fromLane": "0", "toLane": "0"})
    for lane in (0, 1):
        ET.SubElement(cons, "connection", {"from": "main_in", "to": "accel", "fromLane": str(lane),
                                           "toLane": str(lane + 1)})
    for lane in (1, 2):
        ET.SubElement(cons, "connection", {"from": "accel", "to": "main_out", "fromLane": str(lane),
                                           "toLane": str(lane - 1)})


KINDS = {"intersection": intersection, "roundabout": roundabout, "roundabout2": roundabout2, "tjunction": tjunction,
         "tls": tls, "highway": highway}


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in KINDS:
        sys.exit(f"usage: {sys.argv[0]} {{{'|'.join(KINDS)}}} OUTDIR")
    kind, outdir = sys.argv[1], sys.argv[2]
    os.makedirs(outdir, exist_ok=True)
    nodes, edges, cons = ET.Element("nodes"), ET.Element("edges"), ET.Element("connections")
    KINDS[kind](nodes, edges, cons)
    write(nodes, os.path.join(outdir, f"{kind}.nod.xml"))
    write(edges, os.path.join(outdir, f"{kind}.edg.xml"))
    write(cons, os.path.join(outdir, f"{kind}.con.xml"))


if __name__ == "__main__":
    main()
