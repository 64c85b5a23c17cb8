"""The PyPI wheel of another target, made from maturin's Linux x86_64 one: a `bindings = "bin"`
wheel is the binary (NAME.data/scripts/tinymcp) and its metadata, so the other binary goes in
its place, the WHEEL file gets that platform's tags and RECORD the new hashes. No compiler runs:
the binaries are the release's (scripts/release.sh). Usage: wheel-retag.py WHEEL BINARY TARGET OUT (OUT not WHEEL's folder: the names may be the same)
"""

import base64
import hashlib
import os
import sys
import zipfile

# The platform tags of each Rust target's wheel, as maturin writes them for that target (the
# macOS floors are Rust's own: 10.12 for x86_64, 11.0 for arm64).
TAGS = {
    "x86_64-unknown-linux-musl": ["manylinux2014_x86_64", "manylinux_2_17_x86_64", "musllinux_1_2_x86_64"],
    "aarch64-unknown-linux-musl": ["manylinux2014_aarch64", "manylinux_2_17_aarch64", "musllinux_1_2_aarch64"],
    "x86_64-apple-darwin": ["macosx_10_12_x86_64"],
    "aarch64-apple-darwin": ["macosx_11_0_arm64"],
    "x86_64-pc-windows-gnu": ["win_amd64"],
    "aarch64-pc-windows-gnullvm": ["win_arm64"],
}


def record_line(name, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def main():
    wheel, binary, target, out = sys.argv[1:]
    tags = TAGS[target]
    base = os.path.basename(wheel)
    name, version = base.split("-")[:2]
    new_name = f"{name}-{version}-py3-none-{'.'.join(tags)}.whl"
    exe = ".exe" if "windows" in target else ""
    binary_data = open(binary, "rb").read()
    records = []
    with zipfile.ZipFile(wheel) as source, zipfile.ZipFile(os.path.join(out, new_name), "w") as dest:
        for info in source.infolist():
            data = source.read(info)
            member = info.filename
            if member.endswith(".dist-info/RECORD"):
                record = member
                continue
            # The bill of materials maturin wrote is the x86_64 Linux build's dependencies.
            if "/sboms/" in member and target != "x86_64-unknown-linux-musl":
                continue
            if member.endswith(".data/scripts/tinymcp"):
                member, data = member + exe, binary_data
            elif member.endswith(".dist-info/WHEEL"):
                lines = [line for line in data.decode().splitlines() if not line.startswith("Tag:")]
                lines += [f"Tag: py3-none-{tag}" for tag in tags]
                data = ("\n".join(lines) + "\n").encode()
            entry = zipfile.ZipInfo(member, date_time=info.date_time)
            entry.external_attr = info.external_attr
            entry.compress_type = zipfile.ZIP_DEFLATED
            dest.writestr(entry, data)
            records.append(record_line(member, data))
        records.append(f"{record},,")
        dest.writestr(zipfile.ZipInfo(record, date_time=(1980, 1, 1, 0, 0, 0)), "\n".join(records) + "\n")
    print(f"packages: PyPI: {new_name} ({os.path.basename(binary)} in the maturin wheel's place)")


main()
