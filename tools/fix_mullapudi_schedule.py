#!/usr/bin/env python3
"""Makes a Mullapudi2016 schedule written by Halide compile (tools/autoschedule.sh runs it).

Halide's Mullapudi2016 (14 and 21 alike) declares, in each Func's block of its schedule source,
only the Vars and RVars its splits and compute_at use, but its reorder() calls name other
dimensions too (`y`, `z`, `n`, `plane$y`). This declares the missing ones at the top of their
block: a pure dimension as `Var y("y")` (Halide matches dimensions by name, so this is the Func's
own `y`), a reduction dimension `r$y` as the RVar of that position (x, y, z, w: 0-3) of the update
the reorder schedules, as the schedule does for the ones it declares. Anything else it cannot
place stops it with an error, and the file is left as it was.

    fix_mullapudi_schedule.py FILE      (rewrites FILE in place)
"""
import re
import sys

path = sys.argv[1]
text = open(path).read()
lines = text.split("\n")
declared_at_top = set(re.findall(r"\b(?:Var|RVar) (\w[\w$]*)", text.split("{", 2)[1]))


def fail(message):
    sys.exit(f"fix_mullapudi_schedule.py: {path}: {message}")


def fix_block(block):
    """block: the lines of one `{ ... }` Func block, braces excluded."""
    body = "\n".join(block)
    declared = declared_at_top | set(re.findall(r"\b(?:Var|RVar) (\w[\w$]*)", body))
    # The block schedules one Func: the name alone on the line that starts its call chain.
    funcs = [m.group(1) for m in (re.fullmatch(r"\s+(\w+)", line) for line in block) if m]
    if not funcs:
        fail("a block without a Func: " + body)
    func = funcs[0]
    added, seen = [], set()
    # Each reorder with the stage it applies to: `func` itself, or `func.update(k)`.
    for stage, call in re.findall(r"(\.update\(\d+\))?\s*(?:\.\w+\([^)]*\)\s*)*?\.reorder\(([^)]*)\)", body):
        for name in (n.strip() for n in call.split(",")):
            if name in declared or name in seen:
                continue
            seen.add(name)
            rvar = re.fullmatch(r"(\w+)\$([xyzw])", name)
            if rvar:
                if not stage:
                    fail(f"reduction dimension {name} in a reorder of {func}'s pure definition")
                index = "xyzw".index(rvar.group(2))
                added.append(f"        RVar {name}({func}{stage}.get_schedule().rvars()[{index}].var);")
            elif re.fullmatch(r"[a-z_]\w*", name):
                added.append(f'        Var {name}("{name}");')
            else:
                fail(f"cannot declare {name!r}, named in a reorder of {func}")
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
if block is not None or "    {" not in lines:
    fail("no Func blocks found: not a Mullapudi2016 schedule?")
open(path, "w").write("\n".join(out))
