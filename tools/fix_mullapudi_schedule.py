#!/usr/bin/env python3
"""Makes a Mullapudi2016 schedule written by Halide 14 compile (tools/autoschedule.sh runs it).

Halide 14's Mullapudi2016 declares, in each Func's block of its schedule source, only the Vars and
RVars its splits and compute_at use, but its reorder() calls name other dimensions too (`y`, `z`,
`n`, `plane$y`). This declares the missing ones at the top of their block: a pure dimension as
`Var y("y")` (Halide matches dimensions by name, so this is the Func's own `y`), a reduction
dimension `r$y` as the update's RVar of that position (x, y, z, w: 0-3), as the schedule does for
the ones it declares.

    fix_mullapudi_schedule.py FILE      (rewrites FILE in place)
"""
import re
import sys

path = sys.argv[1]
text = open(path).read()
lines = text.split("\n")
declared_at_top = set(re.findall(r"\b(?:Var|RVar) (\w[\w$]*)", text.split("{", 2)[1]))


def fix_block(block):
    """block: the lines of one `{ ... }` Func block, braces excluded."""
    declared = declared_at_top | set(re.findall(r"\b(?:Var|RVar) (\w[\w$]*)", "\n".join(block)))
    func = next(m.group(1) for m in (re.search(r"^\s+(\w+)$", l) for l in block) if m)
    needed = []
    for call in re.findall(r"\.reorder\(([^)]*)\)", "\n".join(block)):
        for name in (n.strip() for n in call.split(",")):
            if name not in declared and name not in needed:
                needed.append(name)
    added = []
    for name in needed:
        m = re.fullmatch(r"(\w+)\$([xyzw])", name)
        if m:
            index = "xyzw".index(m.group(2))
            added.append(f"        RVar {name}({func}.update(0).get_schedule().rvars()[{index}].var);")
        else:
            added.append(f'        Var {name}("{name}");')
    return added + block


out, block = [], None
for line in lines:
    if line == "    {":
        out.append(line)
        block = []
    elif line == "    }" and block is not None:
        out.extend(fix_block(block))
        out.append(line)
        block = None
    elif block is not None:
        block.append(line)
    else:
        out.append(line)
open(path, "w").write("\n".join(out))
