"""Builds assets/models/*.glb from code: small glTF 2.0 binaries made by the
project (run: python3 assets/src/make_models.py).

crate.glb: a node tree "Crate" with three meshes — the box body, a lid and a
roof-shaped marker on top — sharing two PBR materials (wood and metal).

checker_cube.glb: one UV-mapped cube whose material samples an embedded
64×64 PNG base-colour texture, an 8×8 checkerboard of orange and teal.
"""
import json
import os
import struct
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "models")


def box(sx, sy, sz, cy=0.0):
    """Positions, normals and indices of an axis-aligned box (24 vertices)."""
    hx, hy, hz = sx / 2, sy / 2, sz / 2
    faces = [
        ((1, 0, 0), [(hx, -hy, -hz), (hx, hy, -hz), (hx, hy, hz), (hx, -hy, hz)]),
        ((-1, 0, 0), [(-hx, -hy, hz), (-hx, hy, hz), (-hx, hy, -hz), (-hx, -hy, -hz)]),
        ((0, 1, 0), [(-hx, hy, -hz), (-hx, hy, hz), (hx, hy, hz), (hx, hy, -hz)]),
        ((0, -1, 0), [(-hx, -hy, hz), (-hx, -hy, -hz), (hx, -hy, -hz), (hx, -hy, hz)]),
        ((0, 0, 1), [(hx, -hy, hz), (hx, hy, hz), (-hx, hy, hz), (-hx, -hy, hz)]),
        ((0, 0, -1), [(-hx, -hy, -hz), (-hx, hy, -hz), (hx, hy, -hz), (hx, -hy, -hz)]),
    ]
    pos, nrm, idx, uv = [], [], [], []
    for n, quad in faces:
        base = len(pos)
        pos += [(x, y + cy, z) for x, y, z in quad]
        nrm += [n] * 4
        uv += [(0, 1), (0, 0), (1, 0), (1, 1)]
        idx += [base, base + 1, base + 2, base, base + 2, base + 3]
    return pos, nrm, idx, uv


def checker_png(size=64, squares=8, a=(240, 120, 20), b=(20, 150, 160)):
    """An RGB PNG checkerboard."""
    cell = size // squares
    rows = b"".join(
        b"\x00" + b"".join(bytes(a if (x // cell + y // cell) % 2 == 0 else b) for x in range(size))
        for y in range(size)
    )

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", size, size, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows, 9)) + chunk(b"IEND", b"")


def roof(w, h, d, cy):
    """A triangular prism (gable roof) along z, flat-shaded."""
    a, b, c = (-w / 2, cy, 0), (w / 2, cy, 0), (0, cy + h, 0)
    tris = []
    front = [(p[0], p[1], d / 2) for p in (a, b, c)]
    back = [(p[0], p[1], -d / 2) for p in (b, a, c)]
    tris += [front, back]
    for p, q in ((a, c), (c, b), (b, a)):
        p0, p1 = (p[0], p[1], d / 2), (q[0], q[1], d / 2)
        p2, p3 = (q[0], q[1], -d / 2), (p[0], p[1], -d / 2)
        tris += [[p0, p3, p2], [p0, p2, p1]]
    pos, nrm, idx = [], [], []
    for t in tris:
        u = [t[1][i] - t[0][i] for i in range(3)]
        v = [t[2][i] - t[0][i] for i in range(3)]
        n = (u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0])
        ln = sum(c * c for c in n) ** 0.5
        n = tuple(c / ln for c in n)
        base = len(pos)
        pos += t
        nrm += [n] * 3
        idx += [base, base + 1, base + 2]
    return pos, nrm, idx, None


def build_glb(meshes, materials, root_name, images=()):
    """meshes: [(name, material index, (pos, nrm, idx, uv or None))], images:
    PNG bytes each sampled by the texture of the same index → glb bytes."""
    blob = bytearray()
    views, accessors, gl_meshes, nodes = [], [], [], []

    def add_view(data, target=None):
        while len(blob) % 4:
            blob.append(0)
        view = {"buffer": 0, "byteOffset": len(blob), "byteLength": len(data)}
        if target is not None:
            view["target"] = target
        views.append(view)
        blob.extend(data)
        return len(views) - 1

    for name, material, (pos, nrm, idx, uv) in meshes:
        pv = add_view(b"".join(struct.pack("<3f", *p) for p in pos), 34962)
        mins = [min(p[i] for p in pos) for i in range(3)]
        maxs = [max(p[i] for p in pos) for i in range(3)]
        accessors.append({"bufferView": pv, "componentType": 5126, "count": len(pos), "type": "VEC3", "min": mins, "max": maxs})
        nv = add_view(b"".join(struct.pack("<3f", *n) for n in nrm), 34962)
        accessors.append({"bufferView": nv, "componentType": 5126, "count": len(nrm), "type": "VEC3"})
        iv = add_view(b"".join(struct.pack("<H", i) for i in idx), 34963)
        accessors.append({"bufferView": iv, "componentType": 5123, "count": len(idx), "type": "SCALAR"})
        base = len(accessors) - 3
        attributes = {"POSITION": base, "NORMAL": base + 1}
        if uv is not None:
            tv = add_view(b"".join(struct.pack("<2f", *t) for t in uv), 34962)
            accessors.append({"bufferView": tv, "componentType": 5126, "count": len(uv), "type": "VEC2"})
            attributes["TEXCOORD_0"] = len(accessors) - 1
        gl_meshes.append({"name": name, "primitives": [{"attributes": attributes, "indices": base + 2, "material": material}]})
        nodes.append({"name": name, "mesh": len(gl_meshes) - 1})
    nodes.append({"name": root_name, "children": list(range(len(meshes)))})
    gltf = {
        "asset": {"version": "2.0", "generator": "limina assets/src/make_models.py"},
        "scene": 0,
        "scenes": [{"name": root_name, "nodes": [len(nodes) - 1]}],
        "nodes": nodes,
        "meshes": gl_meshes,
        "materials": materials,
        "accessors": accessors,
        "bufferViews": views,
        "buffers": [{"byteLength": len(blob)}],
    }
    if images:
        gltf["images"] = [{"bufferView": add_view(png), "mimeType": "image/png"} for png in images]
        gltf["samplers"] = [{"magFilter": 9729, "minFilter": 9987, "wrapS": 10497, "wrapT": 10497}]
        gltf["textures"] = [{"sampler": 0, "source": i} for i in range(len(images))]
        gltf["buffers"][0]["byteLength"] = len(blob)
    js = json.dumps(gltf, separators=(",", ":")).encode()
    js += b" " * (-len(js) % 4)
    while len(blob) % 4:
        blob.append(0)
    total = 12 + 8 + len(js) + 8 + len(blob)
    return (
        struct.pack("<4sII", b"glTF", 2, total)
        + struct.pack("<I4s", len(js), b"JSON") + js
        + struct.pack("<I4s", len(blob), b"BIN\x00") + bytes(blob)
    )


def main():
    os.makedirs(OUT, exist_ok=True)
    materials = [
        {"name": "Wood", "pbrMetallicRoughness": {"baseColorFactor": [0.55, 0.35, 0.18, 1], "metallicFactor": 0.0, "roughnessFactor": 0.8}},
        {"name": "Metal", "pbrMetallicRoughness": {"baseColorFactor": [0.7, 0.72, 0.75, 1], "metallicFactor": 1.0, "roughnessFactor": 0.3}},
    ]
    meshes = [
        ("CrateBody", 0, box(1.0, 0.8, 1.0, cy=0.4)[:3] + (None,)),
        ("CrateLid", 1, box(1.06, 0.1, 1.06, cy=0.85)[:3] + (None,)),
        ("Marker", 1, roof(0.5, 0.3, 0.3, cy=0.9)),
    ]
    with open(os.path.join(OUT, "crate.glb"), "wb") as f:
        f.write(build_glb(meshes, materials, "Crate"))
    checker = [{"name": "Checker", "pbrMetallicRoughness": {"baseColorTexture": {"index": 0}, "metallicFactor": 0.0, "roughnessFactor": 0.7}}]
    with open(os.path.join(OUT, "checker_cube.glb"), "wb") as f:
        f.write(build_glb([("CheckerCube", 0, box(1.0, 1.0, 1.0, cy=0.5))], checker, "CheckerCube", [checker_png()]))


if __name__ == "__main__":
    main()
