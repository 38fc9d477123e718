#!/usr/bin/env python3
"""Turns the drivable lanelets of a Lanelet2 OSM map into plain-XML nodes and edges for netconvert.

    lanelet2_to_plain.py MAP.osm OUTPREFIX       writes OUTPREFIX.nod.xml and OUTPREFIX.edg.xml

Lanelet2 OSM is not road OSM: roads are `type=lanelet` relations whose `left`/`right` members are line
strings (kerbs, markings), with no `highway=*` ways, so `netconvert --osm-files` finds nothing to build.
This script builds the network SUMO needs instead:
  * every lanelet of subtype road or highway becomes a one-lane edge whose shape is its centreline
    (both bounds resampled by arc length and averaged) and whose width is the mean bound distance;
    `one_way=no` lanelets get an edge in each direction;
  * the two bounds are first oriented alike (closest ends together), then the driving direction is the
    one that has the left bound on the left (bound ways may be stored either way round in the file);
  * lanelets are joined where Lanelet2's routing graph joins them: a lanelet's end (midpoint of the last
    points of its bounds) is a node, and every lanelet starting there (within JOIN_RADIUS_M) leaves from it.
What it cannot carry over: lanelets that cross inside an intersection share no points, so SUMO sees no
conflict between them (no right of way, vehicles may pass through each other there); regulatory
elements (traffic lights, right of way, speed limits) are dropped; every edge gets 13.89 m/s (urban).
Projection: local equirectangular plane around ORIGIN (49.0 N, 8.4 E, the origin of the Lanelet2
example's UTM projector), x east, y north, metres; error below 1 cm across the map.
Standard library only.
"""
import math
import sys
import xml.etree.ElementTree as ET

ORIGIN_LAT_DEG = 49.0
ORIGIN_LON_DEG = 8.4
EARTH_RADIUS_M = 6378137.0
DRIVABLE_SUBTYPES = {"road", "highway"}
SPEED_MPS = 13.89
RESAMPLE_STEP_M = 1.0
JOIN_RADIUS_M = 1.0


def project(lat, lon):
    x = math.radians(lon - ORIGIN_LON_DEG) * EARTH_RADIUS_M * math.cos(math.radians(ORIGIN_LAT_DEG))
    y = math.radians(lat - ORIGIN_LAT_DEG) * EARTH_RADIUS_M
    return x, y


def length(points):
    return sum(math.dist(a, b) for a, b in zip(points, points[1:]))


def resample(points, count):
    """`count` points spread evenly by arc length along the polyline (count >= 2)."""
    total = length(points)
    if total == 0.0:
        return [points[0]] * count
    out, seg, walked = [], 0, 0.0
    for i in range(count):
        target = total * i / (count - 1)
        while seg < len(points) - 2 and walked + math.dist(points[seg], points[seg + 1]) < target:
            walked += math.dist(points[seg], points[seg + 1])
            seg += 1
        a, b = points[seg], points[seg + 1]
        d = math.dist(a, b)
        t = 0.0 if d == 0.0 else min(1.0, max(0.0, (target - walked) / d))
        out.append((a[0] + t * (b[0] - a[0]), a[1] + t * (b[1] - a[1])))
    return out


def main():
    if len(sys.argv) != 3:
        sys.exit(f"usage: {sys.argv[0]} MAP.osm OUTPREFIX")
    root = ET.parse(sys.argv[1]).getroot()
    pos = {n.get("id"): project(float(n.get("lat")), float(n.get("lon"))) for n in root.iter("node")}
    ways = {w.get("id"): [nd.get("ref") for nd in w.iter("nd")] for w in root.iter("way")}
    lanes = []  # (relation id, left node ids, right node ids, bidirectional)
    for rel in root.iter("relation"):
        tags = {t.get("k"): t.get("v") for t in rel.iter("tag")}
        if tags.get("type") != "lanelet" or tags.get("subtype", "road") not in DRIVABLE_SUBTYPES:
            continue
        members = {m.get("role"): m.get("ref") for m in rel.iter("member") if m.get("type") == "way"}
        if "left" not in members or "right" not in members:
            continue
        left, right = list(ways[members["left"]]), list(ways[members["right"]])
        # Orient the right bound like the left one (closest ends together).
        if (math.dist(pos[left[0]], pos[right[-1]]) + math.dist(pos[left[-1]], pos[right[0]]) <
                math.dist(pos[left[0]], pos[right[0]]) + math.dist(pos[left[-1]], pos[right[-1]])):
            right.reverse()
        # Bound ways may be stored against the driving direction (a way shared by lanelets of opposite
        # directions has only one orientation): drive so that the left bound lies on the left.
        lm, rm = pos[left[len(left) // 2]], pos[right[len(right) // 2]]
        d = (pos[left[-1]][0] + pos[right[-1]][0] - pos[left[0]][0] - pos[right[0]][0],
             pos[left[-1]][1] + pos[right[-1]][1] - pos[left[0]][1] - pos[right[0]][1])
        if d[0] * (lm[1] - rm[1]) - d[1] * (lm[0] - rm[0]) < 0.0:
            left.reverse()
            right.reverse()
        lanes.append((rel.get("id"), left, right, tags.get("one_way", "yes") == "no"))

    # Lanelet2 joins a lanelet to its successor when they share both end points. The example map also
    # has successors that start a few centimetres off, or share only one point; ends whose midpoints lie
    # within JOIN_RADIUS_M (well under a lane width, so neighbouring lanes stay apart) become one node.
    ends = []  # (node name, x, y) of every joined lanelet end
    edges = []

    def node_for(l_id, r_id):
        lx, ly = pos[l_id]
        rx, ry = pos[r_id]
        mid = (0.5 * (lx + rx), 0.5 * (ly + ry))
        for name, x, y in ends:
            if math.dist(mid, (x, y)) <= JOIN_RADIUS_M:
                return name
        ends.append((f"n{len(ends)}", mid[0], mid[1]))
        return ends[-1][0]

    def add_edge(edge_id, left, right):
        lp, rp = [pos[i] for i in left], [pos[i] for i in right]
        count = max(2, int(max(length(lp), length(rp)) / RESAMPLE_STEP_M) + 1)
        ls, rs = resample(lp, count), resample(rp, count)
        centre = [(0.5 * (a[0] + b[0]), 0.5 * (a[1] + b[1])) for a, b in zip(ls, rs)]
        width = sum(math.dist(a, b) for a, b in zip(ls, rs)) / count
        src, dst = node_for(left[0], right[0]), node_for(left[-1], right[-1])
        if src == dst:
            return
        edges.append((edge_id, src, dst, centre, width))

    for rel_id, left, right, bidirectional in lanes:
        add_edge(f"ll{rel_id}", left, right)
        if bidirectional:
            add_edge(f"ll{rel_id}_r", right[::-1], left[::-1])

    nod = ET.Element("nodes")
    for name, x, y in ends:
        ET.SubElement(nod, "node", id=name, x=f"{x:.3f}", y=f"{y:.3f}", type="priority")
    edg = ET.Element("edges")
    for edge_id, src, dst, centre, width in edges:
        ET.SubElement(edg, "edge", id=edge_id, **{"from": src, "to": dst}, numLanes="1", speed=f"{SPEED_MPS:.2f}",
                      priority="1", width=f"{max(2.0, width):.2f}",
                      shape=" ".join(f"{x:.3f},{y:.3f}" for x, y in centre))
    for tree, suffix in ((nod, "nod"), (edg, "edg")):
        ET.indent(tree)
        ET.ElementTree(tree).write(f"{sys.argv[2]}.{suffix}.xml", encoding="utf-8", xml_declaration=True)
    print(f"lanelet2_to_plain: {len(lanes)} drivable lanelets -> {len(edges)} edges, {len(ends)} nodes")


if __name__ == "__main__":
    main()
