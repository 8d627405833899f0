"""Generate the reconstructed Turning Point: Stalingrad map (areas.toml, zones.toml, map.toml).

Run from the repository root:  uv run python data/stalingrad/tools/gen_map.py

The committed TOML files are the source of truth; this script only documents how the
reconstructed geometry was made and lets it be regenerated. A GM with the physical map edits
or replaces the TOML files directly (see docs/data-stalingrad.md).

Method. Map units are inches of the physical board (1" = 500 m, rule 3.1); x runs west to east,
y runs north to south, the frame is 16" x 44" (two 22" x 16" boards end to end, four
Quadrants separated by the folds at y = 11, 22 and 33). The land west of the Volga is cut
into 0.25" cells; each cell goes to the nearest Area seed (a discrete Voronoi diagram), the
river and the east bank are fixed bands. Each border between two regions is a chain of cell
edges between junction vertices; every chain is simplified once (Douglas-Peucker) and used by
both regions, so two Areas share a polygon edge exactly when their cells touch along a side.
Zones are drawn as a perimeter band around the frame, apart from the Areas: Zone-Area links
are the arrows of rule 11.1, never shared borders.
"""

from __future__ import annotations

import itertools
import math
import sys
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
PACK = HERE.parent

CELL = 0.25
WIDTH, HEIGHT = 16.0, 44.0
COLS, ROWS = int(WIDTH / CELL), int(HEIGHT / CELL)
OUT, VOLGA, EAST = -1, -2, -3
TOLERANCE = 0.3
QUADRANTS = [
    ("north", "North", 0.0, 11.0),
    ("north-central", "North-Central", 11.0, 22.0),
    ("south-central", "South-Central", 22.0, 33.0),
    ("south", "South", 33.0, 44.0),
]

# West bank of the Volga: (y, x) control points, linear in between.
BANK = [(0.0, 12.6), (6.0, 12.3), (11.0, 11.9), (16.0, 11.5), (22.0, 11.3), (28.0, 11.35),
        (33.0, 11.55), (38.0, 11.85), (44.0, 12.25)]
RIVER_WIDTH = 2.3

R_ = "reconstructed"

# number: (x, y, name, aliases, tem, shape, colour, rubble-symbol)
# Shapes: square = German setup/initial control; circle = Russian; triangle = Russian hill
# (3.21, 5.2, 15.21). Colours are setup regions (5.4); white = no units at start (3.23).
AREAS: dict[int, tuple[float, float, str, list[str], int, str, str]] = {
    # ---- South quadrant (y 33-44)
    1: (1.4, 42.3, "Peschanka Road", [], 1, "square", "purple"),
    2: (3.9, 38.4, "", [], 1, "square", "grey"),
    3: (4.2, 42.7, "Voroponovo Road", [], 1, "square", "purple"),
    4: (1.4, 38.9, "", [], 1, "square", "purple"),
    5: (1.6, 35.4, "", [], 1, "square", "orange"),
    26: (6.3, 35.2, "Dar Gora", [], 2, "circle", "white"),
    27: (6.2, 38.8, "Sadovaya Station", [], 2, "square", "orange"),
    28: (6.4, 42.4, "", [], 2, "square", "grey"),
    29: (8.5, 43.1, "Kuporosnoye Heights", [], 2, "square", "grey"),
    32: (8.3, 39.8, "Yelshanka", ["Elshanka"], 2, "circle", "grey"),
    43: (8.1, 36.4, "Stalingrad-2 Station", [], 3, "circle", "purple"),
    33: (9.6, 34.6, "Minina Suburb", ["Minina"], 3, "circle", "purple"),
    41: (9.8, 37.9, "Kuibyshev Sawmill", ["Sawmill"], 3, "circle", "grey"),
    44: (10.1, 41.3, "Yelshanka Gully", [], 2, "circle", "purple"),
    30: (11.4, 43.0, "Kuporosnoye", ["Kuporosnoe"], 3, "circle", "grey"),
    31: (11.3, 40.1, "Yelshanka Landing", [], 2, "circle", "grey"),
    61: (11.0, 37.3, "Grain Elevator", ["Elevator"], 4, "circle", "purple"),
    62: (10.9, 34.5, "Tsaritsa Mouth", ["Tsaritsa Landing"], 4, "circle", "grey"),
    # ---- South-Central quadrant (y 22-33)
    6: (1.4, 32.2, "", [], 2, "square", "yellow"),
    7: (1.4, 26.4, "Gumrak Road", [], 1, "square", "green"),
    24: (3.9, 28.3, "", [], 2, "circle", "yellow"),
    25: (3.9, 32.3, "", [], 2, "circle", "white"),
    34: (6.3, 32.1, "", [], 2, "circle", "orange"),
    35: (6.2, 28.9, "", [], 2, "circle", "yellow"),
    36: (6.0, 25.6, "City Airfield", ["Airfield"], 1, "circle", "white"),
    37: (5.2, 22.9, "", [], 2, "circle", "green"),
    45: (8.1, 24.0, "Meat-Packing Plant", ["Meat Plant"], 3, "circle", "green"),
    46: (8.0, 27.3, "", [], 3, "circle", "yellow"),
    42: (8.2, 30.5, "Tsaritsa Gorge", ["62nd Army HQ", "Tsaritsyn Bunker"], 3, "circle",
         "orange"),
    48: (9.6, 23.4, "Dolgiy Ravine", [], 3, "circle", "green"),
    47: (9.6, 26.6, "Red Square", ["Univermag"], 3, "circle", "yellow"),
    59: (9.6, 29.8, "Central Railway Station", ["Station No. 1", "Stalingrad-1"], 3,
         "circle", "orange"),
    63: (10.9, 31.8, "Central Landing Stage", ["Central Landing"], 3, "circle", "orange"),
    64: (10.7, 29.0, "9 January Square", ["Pavlov's House"], 4, "circle", "yellow"),
    65: (10.7, 26.2, "Oil Syndicate", ["Fuel Tanks"], 3, "circle", "green"),
    66: (10.7, 23.4, "Krutoy Ravine", [], 3, "circle", "green"),
    # ---- North-Central quadrant (y 11-22)
    8: (1.4, 20.3, "Gumrak", [], 1, "square", "green"),
    9: (1.4, 15.3, "", [], 1, "square", "brown"),
    13: (1.5, 11.8, "", [], 1, "square", "brown"),
    10: (3.6, 19.7, "", [], 1, "square", "green"),
    11: (3.8, 16.4, "Razgulyayevka", ["Razgulyaevka"], 2, "square", "brown"),
    12: (4.0, 12.8, "", [], 2, "square", "brown"),
    23: (6.1, 18.6, "Hill 126.3", [], 3, "triangle", "brown"),
    38: (6.0, 15.2, "", [], 2, "circle", "white"),
    39: (6.1, 12.2, "Silikat Factory", ["Silicate Factory"], 3, "circle", "brown"),
    56: (8.0, 20.3, "Mamayev Kurgan", ["Hill 102", "Mamaev Kurgan", "Mamai Kurgan"], 4,
         "triangle", "green"),
    54: (7.9, 16.8, "Red October Settlement", [], 3, "circle", "brown"),
    55: (8.0, 13.6, "Barricades Settlement", [], 3, "circle", "brown"),
    57: (9.5, 21.1, "Tennis Racket", ["Lazur Chemical Plant"], 3, "circle", "green"),
    58: (9.6, 17.7, "Red October Steel Works", ["Red October", "Krasny Oktyabr"], 4,
         "circle", "brown"),
    60: (9.7, 14.2, "Red Barricades", ["Barricades Gun Factory", "Barrikady"], 4, "circle",
         "brown"),
    67: (10.8, 20.4, "Bannyi Ravine", ["Banny Gully"], 3, "circle", "green"),
    68: (10.9, 17.1, "Red October Landing", [], 3, "circle", "brown"),
    69: (11.1, 13.7, "Barricades Riverside", ["Lyudnikov's Island"], 3, "circle", "brown"),
    # ---- North quadrant (y 0-11)
    14: (1.4, 8.3, "Gorodishche", [], 2, "square", "pink"),
    15: (1.4, 4.4, "", [], 1, "square", "tan"),
    16: (2.2, 1.3, "", [], 1, "square", "tan"),
    17: (3.9, 9.4, "", [], 2, "square", "pink"),
    18: (4.0, 5.8, "Hill 147.6", [], 2, "square", "tan"),
    19: (4.6, 2.2, "", [], 1, "square", "tan"),
    40: (6.1, 9.5, "", [], 2, "circle", "white"),
    20: (6.3, 6.2, "Orlovka", [], 2, "circle", "pink"),
    21: (7.0, 2.5, "Hill 135.4", [], 2, "square", "tan"),
    53: (8.1, 10.0, "Workers' Settlement", ["Tractor Works Settlement"], 3, "circle",
         "pink"),
    52: (8.3, 6.6, "Mokraya Mechetka", ["Mechetka"], 2, "circle", "pink"),
    22: (9.0, 2.3, "", [], 2, "circle", "tan"),
    49: (9.8, 10.2, "Tractor Works West", [], 3, "circle", "pink"),
    50: (10.0, 7.5, "Spartakovka", [], 3, "circle", "tan"),
    51: (10.3, 4.6, "Spartakovka Heights", [], 2, "circle", "tan"),
    74: (10.6, 1.4, "Latashanka Road", [], 2, "square", "tan"),
    70: (11.2, 9.6, "Dzerzhinsky Tractor Works", ["Tractor Works", "STZ"], 4, "circle",
         "pink"),
    71: (11.5, 6.8, "Spartakovka Landing", [], 3, "circle", "tan"),
    72: (11.6, 4.2, "Mechetka Mouth", [], 2, "circle", "tan"),
    73: (11.9, 1.6, "Rynok", [], 3, "circle", "tan"),
}

FERRY = {31, 62, 63, 64, 67, 68, 70, 71}
RUBBLE = {33, 59, 61, 62, 63, 64, 65, 66}
RIVER_BANK = FERRY | {30, 61, 65, 66, 69, 72, 73}

# Facts the rulebook fixes, cited per field (everything else is reconstructed).
FACTS: dict[int, dict[str, str]] = defaultdict(dict)
for n in FERRY:
    FACTS[n]["ferry_landing"] = "Glossary; 18.3"
    FACTS[n]["supply"] = "12.1"
    FACTS[n]["river_bank"] = "19.1"
    FACTS[n]["vp"] = "19.1"
FACTS[30].update(ferry_landing="Glossary", supply="12.1")
for n in RUBBLE:
    FACTS[n]["rubble_symbol"] = "5.7"
FACTS[56].update(name="3.21; 15.212", id_shape="15.21", vp="19.1",
                 observation_range="15.212")
FACTS[23].update(name="15.211", id_shape="15.21", observation_range="15.211")
OBSERVATION = {23: 2, 56: 3}
FACTS[70].update(name="13.1; 13.2")
FACTS[41].update(name="Kuibyshev Sawmill Introductory Scenario")
for n, where in ((6, "Players Notes Example 3"), (24, "Players Notes Example 1"),
                 (25, "Players Notes Example 3"), (35, "Players Notes Examples 1, 5"),
                 (36, "Players Notes Example 2"), (30, "Players Notes Example 4"),
                 (62, "17.3 example")):
    FACTS[n]["tem"] = where
SOUTH_FACT = {5: "Sawmill scenario 2", 33: "Sawmill scenario 1", 61: "Sawmill scenario 1, 2",
              62: "Sawmill scenario 1"}
for n, where in SOUTH_FACT.items():
    FACTS[n]["quadrant"] = where

# Zones (3.3, 11): letter -> (name, aliases, supply, initial control, arrows, polygon, label)
ZONES: dict[str, tuple[str, list[str], str, str, list[int],
                       list[tuple[float, float]], tuple[float, float]]] = {
    "A": ("Beketovka", ["64th Army"], "russian", "russian", [29, 30],
          [(8.0, 44.6), (16.0, 44.6), (16.0, 47.4), (8.0, 47.4)], (12.0, 46.0)),
    "B": ("Voroponovo", [], "russian", "german", [3],
          [(2.0, 44.6), (8.0, 44.6), (8.0, 47.4), (2.0, 47.4)], (5.0, 46.0)),
    "C": ("Peschanka", [], "german", "german", [1, 4, 5, 6],
          [(-3.0, 29.0), (-0.6, 29.0), (-0.6, 44.6), (2.0, 44.6), (2.0, 47.4),
           (-3.0, 47.4)], (-1.8, 40.0)),
    "D": ("Gumrak Airfield", [], "german", "german", [7, 8],
          [(-3.0, 18.0), (-0.6, 18.0), (-0.6, 29.0), (-3.0, 29.0)], (-1.8, 23.5)),
    "E": ("Gonchara", [], "german", "german", [9, 13],
          [(-3.0, 7.0), (-0.6, 7.0), (-0.6, 18.0), (-3.0, 18.0)], (-1.8, 12.5)),
    "F": ("Kotluban", [], "german", "german", [14, 15, 16],
          [(-3.0, -3.4), (3.0, -3.4), (3.0, -0.6), (-0.6, -0.6), (-0.6, 7.0), (-3.0, 7.0)],
          (-1.8, 2.0)),
    "G": ("Land Bridge", ["Don-Volga Land Bridge"], "russian", "german", [16, 19, 21, 22],
          [(3.0, -3.4), (10.0, -3.4), (10.0, -0.6), (3.0, -0.6)], (6.5, -2.0)),
    "H": ("Latashanka", ["Akatovka"], "russian", "german", [73, 74],
          [(10.0, -3.4), (16.0, -3.4), (16.0, -0.6), (10.0, -0.6)], (13.0, -2.0)),
}
ZONE_CHAIN = "ABCDEFGH"


def bank_x(y: float) -> float:
    for (y0, x0), (y1, x1) in itertools.pairwise(BANK):
        if y0 <= y <= y1:
            return x0 + (x1 - x0) * (y - y0) / (y1 - y0)
    return BANK[-1][1]


def label_grid() -> list[list[int]]:
    seeds = [(n, x, y) for n, (x, y, *_rest) in AREAS.items()]
    grid: list[list[int]] = []
    for r in range(ROWS):
        cy = (r + 0.5) * CELL
        bx = bank_x(cy)
        row: list[int] = []
        for c in range(COLS):
            cx = (c + 0.5) * CELL
            if cx > bx + RIVER_WIDTH:
                row.append(EAST)
            elif cx > bx:
                row.append(VOLGA)
            else:
                best = min(seeds, key=lambda s: (s[1] - cx) ** 2 + (s[2] - cy) ** 2)
                row.append(best[0])
        grid.append(row)
    return grid


def cell(grid: list[list[int]], r: int, c: int) -> int:
    if 0 <= r < ROWS and 0 <= c < COLS:
        return grid[r][c]
    return OUT


def boundary_rings(grid: list[list[int]]) -> dict[int, list[tuple[int, int]]]:
    """Counter-clockwise (in y-down screen terms: region on the left) ring of vertex (c, r)."""
    edges: dict[int, dict[tuple[int, int], tuple[int, int]]] = defaultdict(dict)
    for r in range(ROWS):
        for c in range(COLS):
            lab = grid[r][c]
            # vertices: (c, r) top-left. Walk edges keeping the cell on the right-hand side
            # in y-down coordinates (clockwise on screen).
            if cell(grid, r - 1, c) != lab:
                edges[lab][(c, r)] = (c + 1, r)
            if cell(grid, r, c + 1) != lab:
                edges[lab][(c + 1, r)] = (c + 1, r + 1)
            if cell(grid, r + 1, c) != lab:
                edges[lab][(c + 1, r + 1)] = (c, r + 1)
            if cell(grid, r, c - 1) != lab:
                edges[lab][(c, r + 1)] = (c, r)
    rings: dict[int, list[tuple[int, int]]] = {}
    for lab, nxt in edges.items():
        start = min(nxt)
        ring = [start]
        v = nxt[start]
        while v != start:
            ring.append(v)
            v = nxt[v]
        if len(ring) != len(nxt):
            sys.exit(f"region {lab} is not one simply-connected piece")
        rings[lab] = ring
    return rings


def vertex_labels(grid: list[list[int]], v: tuple[int, int]) -> list[int]:
    c, r = v
    return [cell(grid, r - 1, c - 1), cell(grid, r - 1, c), cell(grid, r, c - 1),
            cell(grid, r, c)]


def is_junction(grid: list[list[int]], v: tuple[int, int]) -> bool:
    labs = vertex_labels(grid, v)
    if len(set(labs)) >= 3:
        return True
    a, b, c_, d = labs
    if a == d and b == c_ and a != b:
        sys.exit(f"diagonal touch at vertex {v}")
    return False


def douglas_peucker(pts: list[tuple[int, int]]) -> list[tuple[int, int]]:
    if len(pts) <= 2:
        return pts
    (x0, y0), (x1, y1) = pts[0], pts[-1]
    length = math.hypot(x1 - x0, y1 - y0)
    best, best_i = -1.0, 0
    for i in range(1, len(pts) - 1):
        x, y = pts[i]
        if length == 0:
            d = math.hypot(x - x0, y - y0)
        else:
            d = abs((x1 - x0) * (y0 - y) - (x0 - x) * (y1 - y0)) / length
        if d > best:
            best, best_i = d, i
    if best * CELL <= TOLERANCE:
        return [pts[0], pts[-1]]
    left = douglas_peucker(pts[: best_i + 1])
    right = douglas_peucker(pts[best_i:])
    return left[:-1] + right


def simplify(grid: list[list[int]],
             rings: dict[int, list[tuple[int, int]]]) -> dict[int, list[tuple[int, int]]]:
    cache: dict[tuple[tuple[int, int], ...], list[tuple[int, int]]] = {}
    out: dict[int, list[tuple[int, int]]] = {}
    for lab, ring in rings.items():
        junctions = [i for i, v in enumerate(ring) if is_junction(grid, v)]
        if not junctions:
            sys.exit(f"region {lab} has no junction")
        k = junctions[0]
        ring = ring[k:] + ring[:k]
        junctions = [i - k for i in junctions] + [len(ring)]
        result: list[tuple[int, int]] = []
        for a, b in itertools.pairwise(junctions):
            chain = tuple(ring[a : b + 1] if b < len(ring) else ring[a:] + ring[:1])
            rev = chain[::-1]
            if chain in cache:
                simple = cache[chain]
            elif rev in cache:
                simple = cache[rev][::-1]
            else:
                simple = douglas_peucker(list(chain))
                cache[chain] = simple
            result.extend(simple[:-1])
        out[lab] = result
    return out


def fmt_pt(p: tuple[float, float]) -> str:
    return f"[{p[0]:g}, {p[1]:g}]"


def fmt_poly(pts: list[tuple[float, float]]) -> str:
    body = ", ".join(fmt_pt(p) for p in pts)
    return f"[{body}]"


def toml_str(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def quadrant_of(y: float) -> str:
    for key, _name, y0, y1 in QUADRANTS:
        if y0 <= y < y1:
            return key
    return QUADRANTS[-1][0]


def main() -> None:
    grid = label_grid()
    rings = boundary_rings(grid)
    missing = set(AREAS) - set(rings)
    if missing:
        sys.exit(f"areas with no cells: {sorted(missing)}")
    polys = simplify(grid, rings)
    coords = {lab: [(c * CELL, r * CELL) for c, r in pts] for lab, pts in polys.items()}

    borders: dict[int, set[int]] = defaultdict(set)
    river: set[int] = set()
    east_touch: set[int] = set()
    for r in range(ROWS):
        for c in range(COLS):
            a = grid[r][c]
            for b in (cell(grid, r + 1, c), cell(grid, r, c + 1)):
                if a == b:
                    continue
                if a > 0 and b > 0:
                    borders[a].add(b)
                    borders[b].add(a)
                for x, y in ((a, b), (b, a)):
                    if x > 0 and y == VOLGA:
                        river.add(x)
                    if x > 0 and y == EAST:
                        east_touch.add(x)
    problems = []
    if river != RIVER_BANK:
        problems.append(f"river bank mismatch: extra {sorted(river - RIVER_BANK)} "
                        f"missing {sorted(RIVER_BANK - river)}")
    if east_touch:
        problems.append(f"touch east bank: {sorted(east_touch)}")
    for n, (x, y, *_r) in AREAS.items():
        if grid[int(y / CELL)][int(x / CELL)] != n:
            problems.append(f"label of {n} outside its area")
    for p in problems:
        print("PROBLEM:", p)

    area_zone: dict[int, list[str]] = defaultdict(list)
    for letter, z in ZONES.items():
        for n in z[4]:
            area_zone[n].append(letter)

    lines = [
        "# Turning Point: Stalingrad — the 74 Areas (3.2). Generated by tools/gen_map.py,",
        "# then the source of truth. Coordinates are inches of the physical board, x east,",
        "# y south (map.toml). `borders` lists the Areas sharing a border line (3.2, 8.2);",
        "# Zone arrows are in zones.toml. `field_sources` gives the fields the rulebook fixes",
        "# their own source; every other value of a record has the provenance given by `source`.",
        "",
    ]
    for n in sorted(AREAS):
        x, y, name, aliases, tem, shape, colour = AREAS[n]
        ferry = n in FERRY
        bank = n in RIVER_BANK
        supply = "russian" if ferry or n == 30 else "none"
        vp = 3 if n == 56 else (2 if ferry else (1 if bank else 0))
        quad = quadrant_of(y)
        lines.append("[[area]]")
        lines.append(f"number = {n}")
        if name:
            lines.append(f"name = {toml_str(name)}")
        if aliases:
            lines.append("aliases = [" + ", ".join(toml_str(a) for a in aliases) + "]")
        lines.append(f"tem = {tem}")
        lines.append(f'id_shape = "{shape}"')
        lines.append(f'setup_colour = "{colour}"')
        lines.append(f"river_bank = {str(bank).lower()}")
        lines.append(f"ferry_landing = {str(ferry).lower()}")
        lines.append(f'supply = "{supply}"')
        lines.append(f"rubble_symbol = {str(n in RUBBLE).lower()}")
        lines.append(f"vp = {vp}")
        lines.append(f'quadrant = "{quad}"')
        if n in OBSERVATION:
            lines.append(f"observation_range = {OBSERVATION[n]}")
        lines.append("borders = [" + ", ".join(str(b) for b in sorted(borders[n])) + "]")
        lines.append(f"label = [{x:g}, {y:g}]")
        lines.append(f"polygon = {fmt_poly(coords[n])}")
        lines.append(
            'source = "reconstructed: placed from the historical city plan; '
            'the rulebook gives no map data"'
        )
        facts = FACTS.get(n, {})
        if facts:
            body = ", ".join(f"{k} = {toml_str('rulebook ' + v)}"
                             for k, v in sorted(facts.items()))
            lines.append(f"field_sources = {{ {body} }}")
        lines.append("")
    (PACK / "areas.toml").write_text("\n".join(lines), encoding="utf-8")

    zlines = [
        "# Turning Point: Stalingrad — the eight perimeter Zones A-H (3.3, 11).",
        "# `zones` are the Zone-Zone links, `arrows` the Areas joined by entrance arrows (11.1).",
        "# The polygons draw the Zones as a band around the board for rendering; they touch",
        "# each other exactly where `zones` says and never touch an Area.",
        "",
    ]
    zone_facts: dict[str, dict[str, str]] = {
        "A": {"supply": "12.1"},
        "B": {"supply": "12.1", "arrows": "8.2 (Zone B to Area 3)"},
        "C": {"supply": "12.1; 6.2", "arrows": "Players Notes Example 3 (Area 6)",
              "zones": "Players Notes Example 3 (C, D, E, F, G)"},
        "D": {"supply": "12.1; 6.2", "zones": "Players Notes Example 3"},
        "E": {"supply": "12.1; 6.2", "zones": "Players Notes Example 3"},
        "F": {"supply": "12.1; 6.2", "zones": "Players Notes Example 3"},
        "G": {"supply": "12.1", "zones": "Players Notes Example 3"},
        "H": {"supply": "12.1", "ferry_landing": "Glossary; 18.3", "vp": "19.1",
              "initial_control": "19.1"},
    }
    for letter in ZONE_CHAIN:
        name, aliases, supply, control, arrows, poly, label = ZONES[letter]
        i = ZONE_CHAIN.index(letter)
        links = [ZONE_CHAIN[j] for j in (i - 1, i + 1) if 0 <= j < len(ZONE_CHAIN)]
        quads = sorted({quadrant_of(AREAS[a][1]) for a in arrows},
                       key=[q[0] for q in QUADRANTS].index)
        zlines.append("[[zone]]")
        zlines.append(f'letter = "{letter}"')
        zlines.append(f"name = {toml_str(name)}")
        if aliases:
            zlines.append("aliases = [" + ", ".join(toml_str(a) for a in aliases) + "]")
        zlines.append("tem = 1")
        zlines.append(f'supply = "{supply}"')
        zlines.append(f"ferry_landing = {str(letter == 'H').lower()}")
        zlines.append(f"vp = {2 if letter == 'H' else 0}")
        zlines.append(f'initial_control = "{control}"')
        zlines.append("quadrants = [" + ", ".join(f'"{q}"' for q in quads) + "]")
        zlines.append("zones = [" + ", ".join(f'"{z}"' for z in links) + "]")
        zlines.append("arrows = [" + ", ".join(str(a) for a in arrows) + "]")
        zlines.append(f"label = {fmt_pt(label)}")
        zlines.append(f"polygon = {fmt_poly(poly)}")
        zlines.append(
            'source = "reconstructed: Zone places, names, TEM and arrows follow the '
            'historical approaches; the rulebook prints them only in symbolic form"'
        )
        body = ", ".join(f"{k} = {toml_str('rulebook ' + v)}"
                         for k, v in sorted(zone_facts[letter].items()))
        zlines.append(f"field_sources = {{ {body} }}")
        zlines.append("")
    (PACK / "zones.toml").write_text("\n".join(zlines), encoding="utf-8")

    volga = coords[VOLGA]
    east = coords[EAST]
    mlines = [
        "# Turning Point: Stalingrad — board geometry shared by all Areas and Zones.",
        "# Units are inches of the physical board (3.1: 1 inch = 500 metres); x runs west to",
        "# east, y north to south. Two 22 x 16 inch boards end to end make a 16 x 44 frame;",
        "# the folds at y = 11, 22 and 33 separate the four Quadrants (15.31, Glossary).",
        "",
        "[board]",
        "width = 16.0",
        "height = 44.0",
        'unit = "inch"',
        "scale_metres_per_unit = 500",
        'source = "reconstructed: frame from the component list (1) and the scale (3.1)"',
        'field_sources = { scale_metres_per_unit = "rulebook 3.1" }',
        "",
    ]
    for key, name, y0, y1 in QUADRANTS:
        mlines += [
            "[[quadrant]]",
            f'key = "{key}"',
            f'name = "{name}"',
            f"polygon = [[0, {y0:g}], [16, {y0:g}], [16, {y1:g}], [0, {y1:g}]]",
            'source = "reconstructed: the folds of the two boards"',
            'field_sources = { name = "rulebook 15.31; Glossary (Quadrant)" }',
            "",
        ]
    mlines += [
        "[volga]",
        'name = "Volga"',
        f"polygon = {fmt_poly(volga)}",
        'source = "reconstructed: river course after the historical city plan"',
        "",
        "[east_bank]",
        'name = "East Bank"',
        f"polygon = {fmt_poly(east)}",
        'source = "reconstructed: the east bank strip holding the FAG boxes (5.3) and the '
        'Russian reinforcements (18.2)"',
        "",
    ]
    fag_y = {"north": 5.5, "north-central": 16.5, "south-central": 27.5, "south": 38.5}
    for key, name, _y0, _y1 in QUADRANTS:
        mlines += [
            "[[fag_box]]",
            f'quadrant = "{key}"',
            f'name = "{name} FAG"',
            f"label = [15, {fag_y[key]:g}]",
            'source = "reconstructed: one Front Artillery Group box per Quadrant on the east '
            'side (5.3, 15.31)"',
            "",
        ]
    (PACK / "map.toml").write_text("\n".join(mlines), encoding="utf-8")
    print(f"areas {len(AREAS)} vertices {sum(len(coords[n]) for n in AREAS)}")
    for n in sorted(AREAS):
        print(n, sorted(borders[n]))


if __name__ == "__main__":
    main()
