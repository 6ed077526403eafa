"""How much code each lab asks for: the lines of the solution's src/ that are not in the
starter's (comments and blank lines left out), beside the lab's stated minutes. The lab
pages' speaker notes quote it when they say how long a lab takes.
    python3 scripts/lib/lines-written.py"""
import difflib
import glob
import os
import re


def code_lines(folder):
    files = {}
    for path in glob.glob(folder + "/src/**/*.rs", recursive=True):
        lines = open(path).read().splitlines()
        files[os.path.relpath(path, folder)] = [
            l for l in lines if l.strip() and not l.strip().startswith("//")]
    return files


for lab in sorted(glob.glob("labs/[0-9][0-9]-*")):
    slug = os.path.basename(lab)
    starter, solution = code_lines(lab), code_lines("solutions/" + slug)
    written = 0
    for name in set(starter) | set(solution):
        for line in difflib.unified_diff(starter.get(name, []), solution.get(name, []), lineterm="", n=0):
            if line.startswith("+") and not line.startswith("+++"):
                written += 1
    minutes = re.search(r"^minutes = (\d+)", open(lab + "/Cargo.toml").read(), re.M)
    print("%-22s %3s minutes, %4d lines written" % (slug, minutes.group(1) if minutes else "?", written))
