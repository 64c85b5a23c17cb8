#!/usr/bin/env python3
"""Sums `cargo bloat -n 0 --message-format json` by module: the first path in each function's
name (`<T as Trait>::f` counts as T's), three levels deep inside tinymcp, two elsewhere; code a
crate got from another's generics is shown as `crate (path)`. Usage: bloat-modules.py FILE [TOP]"""
import json, re, sys, collections
d = json.load(open(sys.argv[1]))
agg = collections.Counter()
for f in d["functions"]:
    name = f["name"]
    # The innermost path that owns the code: the first path in the name (`<T as Trait>::f` is T's).
    path = re.match(r"^[<&\s]*((?:[a-z_][a-z0-9_]*::)+)", name)
    if not path:
        agg["[" + (f.get("crate") or "unknown") + "]"] += f["size"]
        continue
    segs = [s for s in path.group(1).split("::") if s]
    depth = 3 if segs[0] == "tinymcp" else 2
    key = "::".join(segs[:depth])
    if f.get("crate") and not key.startswith(f["crate"].rstrip("?")):
        key = f["crate"].rstrip("?") + " (" + key + ")"
    agg[key] += f["size"]
total = sum(agg.values())
for key, size in agg.most_common(int(sys.argv[2]) if len(sys.argv) > 2 else 25):
    print(f"  {size / 1024:8.1f} KiB  {100 * size / total:5.1f}%  {key}")
