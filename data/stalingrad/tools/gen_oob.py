"""Generate units.toml: the reconstructed order of battle of Turning Point: Stalingrad.

Run from the repository root:  uv run python data/stalingrad/tools/gen_oob.py

Like gen_map.py this only records how the reconstruction was made; units.toml is the source
of truth once written. Each `[[formation]]` mirrors a line of the Setup cards (5.5): one kind
of counter with the designations of the battalions sharing its factors. Sources: the
historical orders of battle of the German 6th Army (LI Corps, XIV Panzer Corps) and 4th Panzer
Army (XXXXVIII Panzer Corps), and of the Soviet 62nd Army with its reinforcements, 13 Sept -
14 Nov 1942. Factors are rated from strength and equipment on the scale of the rulebook's
examples; the rulebook's own examples (Glossary, 4.25, 4.26, 4.32, 5.4, 5.5, 15.3, 17.23) are
kept exactly.
"""

from __future__ import annotations

import sys
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from gen_map import AREAS  # noqa: E402

PACK = HERE.parent

OOB_G = "reconstructed: German 6th Army / 4th Panzer Army order of battle, Sept-Nov 1942"
OOB_R = "reconstructed: Soviet 62nd Army order of battle and reinforcements, Sept-Nov 1942"

FORMATIONS: list[dict[str, Any]] = []


def spent_of(defense: str) -> int | None:
    if not defense.isdigit():
        return None
    return max(1, (int(defense) + 1) // 2)


def f(side: str, parent: str | None, parent_name: str | None, regiment: str | None,
      type_: str, size: str, factors: str | None, units: list[str], *,
      at: str | list[str] | None = None, arrive: str | None = None,
      withdraw: str | None = None, mech: bool = False, motor: bool = False,
      night: int | None = None, spent: int | None = None, quadrant: str | None = None,
      setup: list[str] | None = None, source: str | None = None,
      rulebook: dict[str, str] | None = None) -> None:
    rec: dict[str, Any] = {"side": side}
    if parent:
        rec["parent"] = parent
        rec["parent_name"] = parent_name
    if regiment:
        rec["regiment"] = regiment
    rec["type"] = type_
    rec["size"] = size
    if factors:
        rec["factors"] = factors
        if spent is None and type_ not in ("artillery",):
            spent = spent_of(factors.split("-")[1])
    if night is not None:
        rec["night_attack"] = night
    if spent is not None:
        rec["spent_defense"] = spent
    if mech:
        rec["mechanized"] = True
    if motor:
        rec["motorized"] = True
    if quadrant:
        rec["quadrant"] = quadrant
    rec["units"] = units
    if at is not None:
        areas = [at] * len(units) if isinstance(at, str) else at
        assert len(areas) == len(units), (units, areas)
        if setup is None:
            symbols = sorted({f"{AREAS[int(a)][6]} {AREAS[int(a)][5]}" for a in areas})
            if len(symbols) > 1:
                # one Setup-card line carries one setup symbol: split it per symbol
                for sym in symbols:
                    keep = [i for i, a in enumerate(areas)
                            if f"{AREAS[int(a)][6]} {AREAS[int(a)][5]}" == sym]
                    f(side, parent, parent_name, regiment, type_, size, factors,
                      [units[i] for i in keep], at=[areas[i] for i in keep], arrive=arrive,
                      withdraw=withdraw, mech=mech, motor=motor, night=night, spent=spent,
                      quadrant=quadrant, source=source, rulebook=rulebook)
                return
            setup = symbols
        rec["setup"] = setup
        rec["historical"] = areas if len(set(areas)) > 1 else areas[0]
    elif setup is not None:
        rec["setup"] = setup
    if arrive:
        rec["arrive"] = arrive
    if withdraw:
        rec["withdraw"] = withdraw
    rec["source"] = source or (OOB_G if side == "german" else OOB_R)
    if rulebook:
        rec["field_sources"] = {name: f"rulebook {text}" for name, text in rulebook.items()}
    FORMATIONS.append(rec)


def bns(reg: str, n: int = 3) -> list[str]:
    return [f"{r}/{reg}" for r in ("I", "II", "III", "IV")[:n]]


G, R = "german", "russian"

# ============================================================== German, on the map Sept 13
# 94th Infantry Division (XXXXVIII Pz Corps), south-west.
for reg, area in (("267", "1"), ("274", "3"), ("276", "4")):
    f(G, "94", "94th Infantry Division", reg, "infantry", "II", "3-3-5", bns(reg), at=area)
f(G, "94", "94th Infantry Division", None, "pioneer", "II", "4-2-5", ["Pi194"], at="4")
f(G, "94", "94th Infantry Division", None, "pak", "II", "*-3-6", ["PzJg194"], at="3",
  motor=True)
f(G, "94", "94th Infantry Division", None, "artillery", "XX", "6-X-5", ["Arko94"], at="1",
  night=4, motor=True)
# 24th Panzer Division.
f(G, "24Pz", "24th Panzer Division", "24", "tank", "II", "6-6-6", ["I/24"], at="28", mech=True,
  rulebook={"factors": "Players Notes Example 2 (6-6-6 armor)"})
f(G, "24Pz", "24th Panzer Division", "24", "tank", "II", "6-6-8", ["II/24"], at="28",
  mech=True, rulebook={"factors": "Players Notes Example 4 (6-6-8 armor)"})
f(G, "24Pz", "24th Panzer Division", "24", "tank", "II", "5-5-7", ["III/24"], at="29",
  mech=True)
f(G, "24Pz", "24th Panzer Division", "21", "panzergrenadier", "II", "4-4-7", ["I/21"], at="28",
  mech=True)
f(G, "24Pz", "24th Panzer Division", "21", "motorized_infantry", "II", "3-3-6", ["II/21"],
  at="28", motor=True)
f(G, "24Pz", "24th Panzer Division", "26", "motorized_infantry", "II", "3-3-6",
  ["I/26", "II/26"], at="29", motor=True)
f(G, "24Pz", "24th Panzer Division", None, "armored_recon", "II", "3-2-7", ["K4"], at="29",
  mech=True, rulebook={"factors": "4.2 (3-2-7); Players Notes Example 3 (armor, 3 attack, 7 MF)"})
f(G, "24Pz", "24th Panzer Division", None, "pioneer", "II", "5-2-5", ["Pi40"], at="28",
  rulebook={"factors": "Players Notes Example 4 (5-2-5 Pioneer)"})
f(G, "24Pz", "24th Panzer Division", None, "pak", "II", "*-3-6", ["PzJg40"], at="29",
  motor=True)
f(G, "24Pz", "24th Panzer Division", None, "pak", "II", "*-3-6", ["670"], at="28", motor=True,
  withdraw="S27",
  rulebook={"withdraw": "5.5 (670 PAK Bn of the 24th Division withdrawn Sept 27)",
            "parent": "5.5", "type": "5.5"})
f(G, "24Pz", "24th Panzer Division", None, "artillery", "XX", "5-X-5", ["Arko24"], at="2",
  night=3, motor=True)
# 14th Panzer Division.
f(G, "14Pz", "14th Panzer Division", "36", "tank", "II", "6-6-6", ["I/36", "II/36"], at="2",
  mech=True)
f(G, "14Pz", "14th Panzer Division", "103", "panzergrenadier", "II", "4-4-7", ["I/103"],
  at="2", mech=True)
f(G, "14Pz", "14th Panzer Division", "103", "motorized_infantry", "II", "3-3-6", ["II/103"],
  at="2", motor=True)
f(G, "14Pz", "14th Panzer Division", "108", "motorized_infantry", "II", "3-3-6",
  ["I/108", "II/108"], at="2", motor=True)
f(G, "14Pz", "14th Panzer Division", None, "armored_recon", "II", "3-2-7", ["K64"], at="2",
  mech=True)
f(G, "14Pz", "14th Panzer Division", None, "pioneer", "II", "4-2-5", ["Pi13"], at="2")
f(G, "14Pz", "14th Panzer Division", None, "artillery", "XX", "5-X-5", ["Arko14"], at="2",
  night=3, motor=True)
# 29th Motorized Division (left for the Kalmyk steppe mid-September).
f(G, "29Mot", "29th Motorized Division", "15", "motorized_infantry", "II", "3-3-6", bns("15"),
  at="27", motor=True, withdraw="S17")
f(G, "29Mot", "29th Motorized Division", "71", "motorized_infantry", "II", "3-3-6", bns("71"),
  at="5", motor=True, withdraw="S17")
f(G, "29Mot", "29th Motorized Division", None, "tank", "II", "5-5-7", ["Pz129"], at="27",
  mech=True, withdraw="S17")
f(G, "29Mot", "29th Motorized Division", None, "artillery", "XX", "5-X-5", ["Arko29"],
  at="5", night=3, motor=True, withdraw="S17")
# 71st Infantry Division, west of the centre.
f(G, "71", "71st Infantry Division", "194", "infantry", "II", "3-3-5", bns("194"), at="6",
  rulebook={"setup": "Kuibyshev Sawmill scenario 2 (three yellow-coded German units)"})
for reg in ("191", "211"):
    f(G, "71", "71st Infantry Division", reg, "infantry", "II", "3-3-5", bns(reg), at="7")
f(G, "71", "71st Infantry Division", None, "pioneer", "II", "4-2-5", ["Pi171"], at="7",
  rulebook={"factors": "Players Notes Examples 2, 5 (4-2-5 Pioneer)"})
f(G, "71", "71st Infantry Division", None, "pak", "II", "*-3-6", ["PzJg171"], at="7",
  motor=True)
f(G, "71", "71st Infantry Division", None, "artillery", "XX", "6-X-5", ["Arko71"], at="7",
  night=4, motor=True, rulebook={"factors": "4.25 (6-X-5, 6(4))", "night_attack": "4.25"})
# 295th Infantry Division.
for reg, area in (("516", "8"), ("517", "8"), ("518", "10")):
    f(G, "295", "295th Infantry Division", reg, "infantry", "II", "3-3-5", bns(reg), at=area)
f(G, "295", "295th Infantry Division", None, "pioneer", "II", "4-2-5", ["Pi295"], at="10")
f(G, "295", "295th Infantry Division", None, "pak", "II", "*-3-6", ["PzJg295"], at="10",
  motor=True)
f(G, "295", "295th Infantry Division", None, "artillery", "XX", "6-X-5", ["Arko295"], at="8",
  night=4, motor=True)
# 389th Infantry Division.
for reg, area in (("544", "11"), ("545", "12"), ("546", "9")):
    f(G, "389", "389th Infantry Division", reg, "infantry", "II", "2-3-5", bns(reg), at=area,
      rulebook={"factors": "Players Notes Example 1 (infantry attacking at 3:3, 5 MF)"}
      if reg == "544" else None)
f(G, "389", "389th Infantry Division", None, "pioneer", "II", "4-2-5", ["Pi389"], at="11")
f(G, "389", "389th Infantry Division", None, "pak", "II", "*-3-6", ["PzJg389"], at="13",
  motor=True)
f(G, "389", "389th Infantry Division", None, "artillery", "XX", "6-X-5", ["Arko389"], at="11",
  night=4, motor=True)
# 60th Motorized Division (XIV Pz Corps), north-west.
for reg, area in (("92", "17"), ("120", "14")):
    f(G, "60Mot", "60th Motorized Division", reg, "motorized_infantry", "II", "3-3-6",
      bns(reg), at=area, motor=True)
f(G, "60Mot", "60th Motorized Division", None, "tank", "II", "5-5-7", ["Pz160"], at="17",
  mech=True)
f(G, "60Mot", "60th Motorized Division", None, "armored_recon", "II", "3-2-7", ["K160"],
  at="14", mech=True)
f(G, "60Mot", "60th Motorized Division", None, "pioneer", "II", "4-2-5", ["Pi160"], at="17")
f(G, "60Mot", "60th Motorized Division", None, "artillery", "XX", "5-X-5", ["Arko160"],
  at="14", night=3, motor=True)
# 16th Panzer Division, the corridor to the Volga at Latashanka.
f(G, "16Pz", "16th Panzer Division", "2", "tank", "II", "6-6-8", ["I/2", "II/2"],
  at=["74", "21"], mech=True)
f(G, "16Pz", "16th Panzer Division", "2", "tank", "II", "5-5-7", ["III/2"], at="19", mech=True)
f(G, "16Pz", "16th Panzer Division", "64", "panzergrenadier", "II", "4-4-7", ["I/64"], at="74",
  mech=True)
f(G, "16Pz", "16th Panzer Division", "64", "motorized_infantry", "II", "3-3-6", ["II/64"],
  at="74", motor=True)
f(G, "16Pz", "16th Panzer Division", "79", "motorized_infantry", "II", "3-3-6",
  ["I/79", "II/79"], at="21", motor=True)
f(G, "16Pz", "16th Panzer Division", None, "armored_recon", "II", "3-2-7", ["K16"], at="19",
  mech=True)
f(G, "16Pz", "16th Panzer Division", None, "pioneer", "II", "4-2-5", ["Pi16"], at="74")
f(G, "16Pz", "16th Panzer Division", None, "pak", "II", "*-3-6", ["PzJg16"], at="19",
  motor=True)
f(G, "16Pz", "16th Panzer Division", None, "artillery", "XX", "5-X-5", ["Arko16"], at="21",
  night=3, motor=True)
# 3rd Motorized Division, north.
for reg, area in (("8", "18"), ("29", "15")):
    f(G, "3Mot", "3rd Motorized Division", reg, "motorized_infantry", "II", "3-3-6", bns(reg),
      at=area, motor=True)
f(G, "3Mot", "3rd Motorized Division", None, "tank", "II", "5-5-7", ["Pz103"], at="16",
  mech=True)
f(G, "3Mot", "3rd Motorized Division", None, "artillery", "XX", "5-X-5", ["Arko3"], at="16",
  night=3, motor=True)
# Divisional reconnaissance battalions (bicycle/cavalry: Infantry, 4.22) and extra anti-tank.
for par, name, des, area in (("94", "94th Infantry Division", "AA194", "1"),
                             ("71", "71st Infantry Division", "AA171", "7"),
                             ("295", "295th Infantry Division", "AA295", "8"),
                             ("389", "389th Infantry Division", "AA389", "9")):
    f(G, par, name, None, "recon", "II", "2-2-6", [des], at=area)
f(G, "14Pz", "14th Panzer Division", None, "pak", "II", "*-3-6", ["PzJg4"], at="27",
  motor=True)
f(G, "3Mot", "3rd Motorized Division", None, "armored_recon", "II", "3-2-7", ["K53"], at="16",
  mech=True)
f(G, "3Mot", "3rd Motorized Division", None, "pak", "II", "*-3-6", ["PzJg53"], at="15",
  motor=True)
f(G, "3Mot", "3rd Motorized Division", None, "pioneer", "II", "4-2-5", ["Pi3"], at="18")
f(G, "60Mot", "60th Motorized Division", None, "pak", "II", "*-3-6", ["PzJg160"], at="14",
  motor=True)
# Army and Luftwaffe troops.
f(G, None, None, None, "tank", "II", "5-6-6", ["StuG244"], at="10", mech=True)
f(G, None, None, None, "tank", "II", "5-6-6", ["StuG245"], at="12", mech=True)
f(G, "9Flak", "9th Flak Division", "104", "flak", "II", "*-4-6", ["I/104", "II/104"],
  at=["7", "29"], mech=True,
  rulebook={"mechanized": "Players Notes Example 3 (FLAK uses its Mechanized bonus)"})
f(G, "9Flak", "9th Flak Division", "104", "flak", "II", "*-4-6", ["III/104"], at="13",
  mech=True)
f(G, None, None, None, "luftwaffe", "XX", None, ["Stuka"], source="rulebook 4.26, 17.23",
  rulebook={"type": "4.26"})

# ================================================================ German reinforcements
f(G, None, None, None, "pak", "II", "*-4-6", ["Stahel"], arrive="S15", motor=True,
  source="rulebook 5.4",
  rulebook={"arrive": "5.4 (code S15 on the Stahel PAK Bn)"})
for reg in ("54", "227"):
    f(G, "100Jg", "100th Jager Division", reg, "infantry", "II", "4-3-5", bns(reg),
      arrive="S26")
f(G, "100Jg", "100th Jager Division", "369", "infantry", "II", "3-3-5", bns("369"),
  arrive="S26")
f(G, "100Jg", "100th Jager Division", None, "pioneer", "II", "4-2-5", ["Pi100"], arrive="S26")
f(G, "100Jg", "100th Jager Division", None, "pak", "II", "*-3-6", ["PzJg100"], arrive="S26",
  motor=True)
f(G, "100Jg", "100th Jager Division", None, "artillery", "XX", "5-X-5", ["Arko100"],
  arrive="S26", night=3, motor=True)
f(G, "9Flak", "9th Flak Division", "91", "flak", "II", "*-4-6", ["I/91"], arrive="S20",
  mech=True)
f(G, None, None, None, "tank", "II", "5-6-6", ["StuG177"], arrive="O2", mech=True)
# Extension counters (21.1): the divisions of the October offensives and the pioneers of
# Operation Hubertus.
for reg in ("576", "577", "578"):
    f(G, "305", "305th Infantry Division", reg, "infantry", "II", "4-4-5", bns(reg),
      arrive="O13")
f(G, "305", "305th Infantry Division", None, "pioneer", "II", "4-2-5", ["Pi305"], arrive="O13")
f(G, "305", "305th Infantry Division", None, "pak", "II", "*-3-6", ["PzJg305"], arrive="O13",
  motor=True)
f(G, "305", "305th Infantry Division", None, "artillery", "XX", "6-X-5", ["Arko305"],
  arrive="O13", night=4, motor=True)
for reg in ("208", "212", "226"):
    f(G, "79", "79th Infantry Division", reg, "infantry", "II", "4-4-5", bns(reg), arrive="O21")
f(G, "79", "79th Infantry Division", None, "pioneer", "II", "4-2-5", ["Pi179"], arrive="O21")
f(G, "79", "79th Infantry Division", None, "pak", "II", "*-3-6", ["PzJg179"], arrive="O21",
  motor=True)
f(G, "79", "79th Infantry Division", None, "artillery", "XX", "6-X-5", ["Arko79"],
  arrive="O21", night=4, motor=True)
f(G, "305", "305th Infantry Division", None, "recon", "II", "2-2-6", ["AA305"], arrive="O13")
f(G, "79", "79th Infantry Division", None, "recon", "II", "2-2-6", ["AA179"], arrive="O21")
f(G, "100Jg", "100th Jager Division", None, "recon", "II", "2-2-6", ["AA100"], arrive="S26")
f(G, None, None, None, "pioneer", "II", "5-3-5",
  ["Pi45", "Pi50", "Pi162", "Pi294", "Pi336"], arrive="N9")

# ============================================================= Russian, on the map Sept 13
RIFLE = "infantry"
# South: 35th Guards, 131st Rifle Divisions, 10th Rifle Brigade, 271st NKVD.
f(R, "35G", "35th Guards Rifle Division", None, RIFLE, "II", "1-2-4", ["I/101"], at="30",
  rulebook={"factors": "Players Notes Example 4 (infantry beside the AA units in Area 30)"})
f(R, None, None, None, "aa", "II", "*-6-3", ["1077AA"], at="30",
  rulebook={"factors": "Players Notes Example 4 (AA Defense Factor 6)"})
f(R, None, None, None, "aa", "II", "*-3-3", ["748AA"], at="30",
  rulebook={"factors": "Players Notes Example 4 (AA Defense Factor 3)"})
f(R, "35G", "35th Guards Rifle Division", None, RIFLE, "II", "1-2-4",
  ["I/100", "II/100", "II/101", "I/102", "II/102", "III/102"],
  at=["32", "32", "41", "62", "62", "44"],
  rulebook={"factors": "Players Notes Examples 1, 3, 5 (Russian 1-2-4)"})
f(R, "131", "131st Rifle Division", None, RIFLE, "II", "1-2-4", ["I/482", "I/487", "I/593"],
  at=["31", "31", "44"])
f(R, "10RB", "10th Rifle Brigade", "390", RIFLE, "III", "1-3-4", ["390"], at="33",
  source="rulebook 4.32", rulebook={"factors": "4.32", "size": "4.32", "parent": "4.32"})
f(R, "10RB", "10th Rifle Brigade", None, RIFLE, "II", "2-3-4", ["1RB10", "2RB10"], at="43")
f(R, "10NKVD", "10th NKVD Rifle Division", "271", RIFLE, "II", "2-3-4", bns("271"),
  at=["61", "61", "33"])
f(R, None, None, None, "tank", "X", "6-7-5", ["133TB"], at="41", mech=True)
f(R, None, None, None, "atr", "II", "*-2-4", ["1186ATR"], at="62")
# South-Central: 10th NKVD (270, 272, 282), 42nd Rifle Brigade, 244th, 399th Rifle Divisions.
f(R, "10NKVD", "10th NKVD Rifle Division", "272", RIFLE, "II", "2-3-4", bns("272"), at="42",
  rulebook={"regiment": "Kuibyshev Sawmill scenario 2 (272nd Regiment, three orange units)",
            "setup": "Kuibyshev Sawmill scenario 2 (orange)"})
f(R, "10NKVD", "10th NKVD Rifle Division", "270", RIFLE, "II", "2-3-4", bns("270"),
  at=["59", "59", "63"])
f(R, "10NKVD", "10th NKVD Rifle Division", "282", RIFLE, "II", "2-3-4", bns("282"),
  at=["64", "64", "47"])
f(R, "42RB", "42nd Rifle Brigade", None, RIFLE, "II", "2-3-4",
  ["1RB42", "2RB42", "3RB42", "4RB42"], at=["34", "34", "46", "46"])
f(R, "244", "244th Rifle Division", None, RIFLE, "II", "1-2-4",
  ["I/907", "II/907", "I/911", "I/913"], at=["24", "35", "35", "47"],
  rulebook={"factors": "Players Notes Example 1 (the Russian 1-2-4 in Area 24)"})
f(R, "399", "399th Rifle Division", None, RIFLE, "II", "1-2-4", ["I/1349", "I/1351"],
  at="37")
f(R, "23TC", "23rd Tank Corps", None, "tank", "X", "5-5-6", ["27TB"], at="45", mech=True)
f(R, None, None, None, "mg", "II", "*-3-3", ["52MG"], at="66")
f(R, None, None, None, "atr", "II", "*-2-4", ["1187ATR"], at="65")
f(R, None, None, None, "engineer", "II", "2-2-4", ["329Eng"], at="48")
# North-Central: 269th NKVD on Mamayev Kurgan, 112th Rifle Division, 23rd Tank Corps.
f(R, "10NKVD", "10th NKVD Rifle Division", "269", RIFLE, "II", "2-3-4", bns("269"),
  at=["56", "56", "48"])
f(R, "112", "112th Rifle Division", "385", RIFLE, "II", "1-2-4", bns("385", 2), at="23")
f(R, "112", "112th Rifle Division", "416", RIFLE, "II", "1-2-4", bns("416", 2), at="57")
f(R, "112", "112th Rifle Division", "524", RIFLE, "II", "1-2-4", bns("524", 2), at="67")
f(R, "23TC", "23rd Tank Corps", None, "tank", "X", "5-5-6", ["189TB", "6GTB"],
  at=["39", "58"], mech=True)
f(R, "23TC", "23rd Tank Corps", "9MRB", "motorized_infantry", "II", "2-3-5", bns("9MRB"),
  at=["54", "55", "55"], motor=True)
f(R, "23TC", "23rd Tank Corps", "38MRB", "motorized_infantry", "II", "2-3-5", bns("38MRB"),
  at=["60", "58", "60"], motor=True)
f(R, None, None, None, "aa", "II", "*-4-3", ["1080AA"], at="68")
f(R, None, None, None, "mg", "II", "*-3-3", ["54MG"], at="69")
f(R, None, None, None, "engineer", "II", "2-2-4", ["1057Eng"], at="69")
# North: Orlovka salient (115th Rifle Brigade, 2nd Motor Rifle Brigade), Tractor Works,
# Group Gorokhov (124th, 149th Rifle Brigades) at Spartakovka and Rynok.
f(R, "115RB", "115th Rifle Brigade", None, RIFLE, "II", "2-3-4",
  ["1RB115", "2RB115", "3RB115", "4RB115"], at=["20", "20", "52", "52"])
f(R, "2MRB", "2nd Motor Rifle Brigade", None, "motorized_infantry", "II", "2-3-5",
  ["1MRB2", "2MRB2", "3MRB2"], at=["20", "53", "53"], motor=True)
f(R, None, None, None, "tank", "X", "5-5-6", ["99TB"], at="70", mech=True)
f(R, None, None, None, RIFLE, "II", "1-2-4", ["STZMil"], at="49")
f(R, None, None, None, "aa", "II", "*-4-3", ["1079AA"], at="70")
f(R, "124RB", "124th Rifle Brigade", None, RIFLE, "II", "2-3-4",
  ["1RB124", "2RB124", "3RB124", "4RB124"], at=["73", "72", "72", "22"])
f(R, "149RB", "149th Rifle Brigade", None, RIFLE, "II", "2-3-4",
  ["1RB149", "2RB149", "3RB149", "4RB149"], at=["50", "50", "51", "71"])
f(R, "196", "196th Rifle Division", None, RIFLE, "II", "1-2-4", ["I/863", "I/884"],
  at=["51", "22"])
f(R, None, None, None, "td", "II", "*-3-4", ["1103TD"], at="49")
f(R, "20MRB", "20th Motor Rifle Brigade", None, "motorized_infantry", "II", "2-3-5",
  ["1MRB20", "2MRB20", "3MRB20"], at=["24", "46", "37"], motor=True)
f(R, None, None, None, "tank", "X", "5-5-6", ["26TB"], at="43", mech=True)
f(R, None, None, None, "tank", "X", "2-3-7", ["56TB"], at="32", mech=True)
f(R, None, None, None, "td", "II", "*-3-4", ["1104TD", "1185TD"], at=["59", "45"])
f(R, "87", "87th Rifle Division", None, RIFLE, "II", "1-2-4", ["I/1378", "I/1379"],
  at=["39", "54"])
f(R, "98", "98th Rifle Division", None, RIFLE, "II", "1-2-4", ["I/166", "I/308"],
  at=["23", "57"])
# Russian artillery (4.25, 5.3, 15.3, 15.31): one Front Artillery Group per Quadrant.
for quad, des in (("north", "FAG-N"), ("north-central", "FAG-NC"),
                  ("south-central", "FAG-SC"), ("south", "FAG-S")):
    f(R, None, None, None, "fag", "XXXX", None, [des], quadrant=quad,
      source="rulebook 5.3, 15.3, 15.31", rulebook={"quadrant": "15.31"})

# =============================================================== Russian reinforcements
for reg in ("34G", "39G", "42G"):
    f(R, "13G", "13th Guards Rifle Division", reg, RIFLE, "II", "4-4-4", bns(reg), arrive="S14")
f(R, "13G", "13th Guards Rifle Division", None, "atr", "II", "*-2-4", ["ATR13G"],
  arrive="S14")
f(R, "92RB", "92nd Rifle Brigade", None, RIFLE, "II", "3-4-4",
  ["1RB92", "2RB92", "3RB92", "4RB92"], arrive="S17")
f(R, None, None, None, "tank", "X", "2-3-7", ["137TB"], arrive="S17", mech=True)
for reg in ("90", "161", "241"):
    f(R, "95", "95th Rifle Division", reg, RIFLE, "II", "3-4-4", bns(reg), arrive="S19")
f(R, "284", "284th Rifle Division", "1045", RIFLE, "II", "4-5-4", bns("1045"), arrive="S22",
  rulebook={"factors": "Glossary (284 III/1045, 4-5-4)", "parent": "Glossary",
            "regiment": "Glossary"})
for reg in ("1043", "1047"):
    f(R, "284", "284th Rifle Division", reg, RIFLE, "II", "3-5-4", bns(reg), arrive="S22")
f(R, "284", "284th Rifle Division", None, "engineer", "II", "2-2-4", ["Eng284"], arrive="S22")
for reg in ("883", "685", "895"):
    f(R, "193", "193rd Rifle Division", reg, RIFLE, "II", "3-4-4", bns(reg), arrive="S27")
for reg in ("112G", "117G", "120G"):
    f(R, "39G", "39th Guards Rifle Division", reg, RIFLE, "II", "3-4-4", bns(reg),
      arrive="S30")
for reg in ("339", "347", "351"):
    f(R, "308", "308th Rifle Division", reg, RIFLE, "II", "3-4-4", bns(reg), arrive="O1")
for reg in ("109G", "114G", "118G"):
    f(R, "37G", "37th Guards Rifle Division", reg, RIFLE, "II", "4-4-4", bns(reg), arrive="O3")
f(R, None, None, None, "mg", "II", "*-3-3", ["MG62A"], arrive="O3")
for par, name, arr in (("95", "95th Rifle Division", "S19"), ("284", "284th Rifle Division", "S22"),
                      ("193", "193rd Rifle Division", "S27"),
                      ("39G", "39th Guards Rifle Division", "S30"),
                      ("308", "308th Rifle Division", "O1"),
                      ("37G", "37th Guards Rifle Division", "O3")):
    f(R, par, name, None, "atr", "II", "*-2-4", [f"ATR{par}"], arrive=arr)
for par, name, arr in (("95", "95th Rifle Division", "S19"), ("193", "193rd Rifle Division", "S27"),
                      ("39G", "39th Guards Rifle Division", "S30"),
                      ("308", "308th Rifle Division", "O1"),
                      ("37G", "37th Guards Rifle Division", "O3")):
    f(R, par, name, None, "engineer", "II", "2-2-4", [f"Eng{par}"], arrive=arr)
# Extension counters (21.1).
f(R, "84TB", "84th Tank Brigade", None, "tank", "II", "5-5-6", ["T34-84", "KV-84"],
  arrive="O4", mech=True)
f(R, "84TB", "84th Tank Brigade", None, "tank", "II", "2-3-7", ["T70-84"], arrive="O4",
  mech=True)
for reg in ("344", "650", "768"):
    f(R, "138", "138th Rifle Division", reg, RIFLE, "II", "3-4-4", bns(reg), arrive="O16")
for reg in ("10", "61", "253"):
    f(R, "45", "45th Rifle Division", reg, RIFLE, "II", "3-4-4", bns(reg), arrive="O27")
f(R, None, None, None, "engineer", "II", "2-2-4", ["6PontEng"], arrive="O27")
for par, name, arr in (("138", "138th Rifle Division", "O16"),
                       ("45", "45th Rifle Division", "O27")):
    f(R, par, name, None, "atr", "II", "*-2-4", [f"ATR{par}"], arrive=arr)
    f(R, par, name, None, "engineer", "II", "2-2-4", [f"Eng{par}"], arrive=arr)


def toml_value(v: Any) -> str:
    if isinstance(v, bool):
        return str(v).lower()
    if isinstance(v, int):
        return str(v)
    if isinstance(v, str):
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(v, list):
        return "[" + ", ".join(toml_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{k} = {toml_value(x)}" for k, x in v.items()) + " }"
    raise TypeError(v)


def main() -> None:
    lines = [
        "# Turning Point: Stalingrad — order of battle (4, 5.4-5.5, 18, 21.3).",
        "# One [[formation]] per line of the Setup cards: counters sharing side, parent,",
        "# regiment, type and factors; `units` lists one designation per counter. A unit's id",
        '# is side letter + parent + ":" + designation, e.g. "R284:III/1045", "G:Stahel".',
        '# factors = "Attack-Defense-Movement" of the Fresh side ("*" = no Attack Factor, 4.2;',
        '# "X" = no Defense Factor, 4.25). `setup` = colour + shape of the setup symbol (5.4),',
        "# `historical` = the Area for the historical setup (21.2), `arrive` / `withdraw` =",
        '# date codes like "S15" (5.4, 21.3). Units arriving after Oct 3 are extension',
        "# counters (21.1). `field_sources` cites the fields the rulebook fixes.",
        "",
    ]
    for rec in FORMATIONS:
        lines.append("[[formation]]")
        for k, v in rec.items():
            lines.append(f"{k} = {toml_value(v)}")
        lines.append("")
    (PACK / "units.toml").write_text("\n".join(lines), encoding="utf-8")

    count: Counter[str] = Counter()
    per_area: dict[str, int] = defaultdict(int)
    for rec in FORMATIONS:
        count[rec["side"]] += len(rec["units"])
        hist = rec.get("historical")
        if hist and rec["type"] not in ("artillery",):
            areas = [hist] * len(rec["units"]) if isinstance(hist, str) else hist
            for a in areas:
                per_area[a] += 1
    print(dict(count), sum(count.values()))
    empty = [n for n, a in AREAS.items() if a[6] != "white" and per_area.get(str(n), 0) == 0]
    print("areas without a starting unit:", empty)
    print("over ten:", {a: c for a, c in per_area.items() if c > 10})
    print("white with units:", [a for a in per_area if AREAS[int(a)][6] == "white"])


if __name__ == "__main__":
    main()
