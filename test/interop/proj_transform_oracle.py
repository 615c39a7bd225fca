# The oracle of the exhaustive /coordinates/transform test: Debian's PROJ (python3-pyproj over libproj) listing
# every non-deprecated EPSG CRS of the registry it reads, and choosing and running its default transformation
# between EPSG:4326 and each one, both directions, at the centre of the CRS's area of use.
#
#   PROJ_DATA=DIR python3 proj_transform_oracle.py [CODE...] > answers.jsonl
#
# DIR holds the proj.db to read (Debian's own, copied there) and no grid files: PROJ then chooses among the
# operations that need none, as the server does without coordinates.gridDir.
#
# stdout, JSON lines: first {"proj": "9.9.0", "pyproj": "3.8.0", "epsg": "v13.102", "total": N}, then
# {"answers": [...]} for each chunk of CHUNK CRS as it is done (the test transforms one chunk over HTTP while the
# oracle computes the next), one answer per CRS:
#   {"code", "type" (pyproj's PJType name), "name", "point": [lon, lat] (the centre of the area of use), "status", ...}
#   status "refused": not in the scope of a transform from 4326, `reason` says why (vertical only, engineering,
#     no area of use);
#   status "none": PROJ offers no operation from or to EPSG:4326 (`reason`: PROJ's error);
#   status "outside": PROJ has an operation, but it gives no finite coordinates at the area's centre (`reason`);
#   status "crash": this PROJ aborts on the CRS (an assertion; a method of the newer registry it does not know);
#   status "ok": `default` (the EPSG code of the operation of the CRS bound to WGS 84, or null), `fwd` [x, y, z] from
#     `point` (z = 0 given), `back` [lon, lat, h] from `fwd` to 4326, `units` [metres or radians per unit of each
#     axis], `angular` [bool per axis], `fwdOp`/`invOp` (PROJ's description of what it ran).
#
# PROJ's default choice is what `cs2cs` and pyproj's Transformer.from_crs do (proj_create_crs_to_crs), in GIS axis
# order (always_xy); for a CRS that PROJ binds to WGS 84 with an EPSG operation (proj_crs_create_bound_crs_to_WGS84,
# which pyproj does not expose: called through ctypes on the same libproj), that bound CRS instead: the operation
# the cloud documents as the CRS's default_transformation (the TOWGS84 GDAL and epsg.io use).

import ctypes
import json
import math
import os
import sys
import warnings

warnings.simplefilter('ignore')

import pyproj
from pyproj import CRS, Transformer
from pyproj.database import query_crs_info

CHUNK = 250
PJ_CATEGORY_CRS = 3
PJ_TYPE_BOUND_CRS = 19
PJ_WKT2_2019 = 2

lib = ctypes.CDLL('libproj.so.25')
lib.proj_context_create.restype = ctypes.c_void_p
lib.proj_create_from_database.restype = ctypes.c_void_p
lib.proj_create_from_database.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_int, ctypes.c_int, ctypes.c_void_p]
lib.proj_crs_create_bound_crs_to_WGS84.restype = ctypes.c_void_p
lib.proj_crs_create_bound_crs_to_WGS84.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
lib.proj_get_type.argtypes = [ctypes.c_void_p]
lib.proj_crs_get_coordoperation.restype = ctypes.c_void_p
lib.proj_crs_get_coordoperation.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
lib.proj_get_id_auth_name.restype = ctypes.c_char_p
lib.proj_get_id_auth_name.argtypes = [ctypes.c_void_p, ctypes.c_int]
lib.proj_get_id_code.restype = ctypes.c_char_p
lib.proj_get_id_code.argtypes = [ctypes.c_void_p, ctypes.c_int]
lib.proj_as_wkt.restype = ctypes.c_char_p
lib.proj_as_wkt.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p]
lib.proj_destroy.argtypes = [ctypes.c_void_p]
lib.proj_context_get_database_metadata.restype = ctypes.c_char_p
lib.proj_context_get_database_metadata.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
lib.proj_context_errno.argtypes = [ctypes.c_void_p]
lib.proj_context_errno_string.restype = ctypes.c_char_p
lib.proj_context_errno_string.argtypes = [ctypes.c_void_p, ctypes.c_int]
ctx = lib.proj_context_create()

# Types without horizontal coordinates a transform from 4326 could reach.
REFUSED = {'VERTICAL_CRS': 'vertical only', 'ENGINEERING_CRS': 'engineering (local, no geodetic datum)', 'TEMPORAL_CRS': 'temporal only'}


def bound_to_wgs84(code):
    """(WKT of the CRS bound to WGS 84, EPSG code of its operation) when PROJ binds it with an EPSG operation."""
    crs = lib.proj_create_from_database(ctx, b'EPSG', str(code).encode(), PJ_CATEGORY_CRS, 0, None)
    if not crs:
        return None
    try:
        bound = lib.proj_crs_create_bound_crs_to_WGS84(ctx, crs, None)
        if not bound:
            return None
        try:
            if lib.proj_get_type(bound) != PJ_TYPE_BOUND_CRS:
                return None
            op = lib.proj_crs_get_coordoperation(ctx, bound)
            try:
                auth = lib.proj_get_id_auth_name(op, 0) if op else None
                opcode = lib.proj_get_id_code(op, 0) if op else None
            finally:
                if op:
                    lib.proj_destroy(op)
            if auth != b'EPSG' or not opcode or not opcode.isdigit():
                return None
            return lib.proj_as_wkt(ctx, bound, PJ_WKT2_2019, None).decode(), int(opcode)
        finally:
            lib.proj_destroy(bound)
    finally:
        lib.proj_destroy(crs)


def finite(p):
    return all(v is not None and math.isfinite(v) for v in p)


def centre(area):
    """The centre of an area of use's bounding box, across the antimeridian when west > east."""
    w, e = area.west, area.east
    if e < w:
        e += 360
    lon = (w + e) / 2
    return [((lon + 180) % 360) - 180, (area.south + area.north) / 2]


def answer(info):
    code = int(info.code)
    out = {'code': code, 'type': info.type.name, 'name': info.name}
    if info.type.name in REFUSED:
        return {**out, 'status': 'refused', 'reason': REFUSED[info.type.name]}
    if info.area_of_use is None:
        return {**out, 'status': 'refused', 'reason': 'no area of use in the registry'}
    point = centre(info.area_of_use)
    out['point'] = point
    crs = CRS.from_epsg(code)
    bound = bound_to_wgs84(code)
    target = CRS.from_wkt(bound[0]) if bound else crs
    try:
        fwd = Transformer.from_crs(4326, target, always_xy=True)
        inv = Transformer.from_crs(target, 4326, always_xy=True)
    except pyproj.exceptions.ProjError as e:
        return {**out, 'status': 'none', 'reason': str(e).splitlines()[0]}
    p = list(fwd.transform(point[0], point[1], 0.0, errcheck=False))
    if not finite(p):
        return {**out, 'status': 'outside', 'reason': f'no finite coordinates from 4326 at {point} ({fwd.description})'}
    b = list(inv.transform(*p, errcheck=False))
    if not finite(b):
        return {**out, 'status': 'outside', 'reason': f'no finite coordinates back to 4326 from {p} ({inv.description})'}
    axes = crs.axis_info
    return {
        **out,
        'status': 'ok',
        'default': bound[1] if bound else None,
        'fwd': p,
        'back': b,
        'units': [a.unit_conversion_factor for a in axes],
        'angular': [a.unit_name in ('degree', 'grad', 'radian', 'arc-second', 'arc-minute') or 'degree' in a.unit_name or 'grad' in a.unit_name for a in axes],
        'fwdOp': fwd.description,
        'invOp': inv.description,
    }


def in_child(infos):
    """The answers for `infos` computed in a forked process: None when it dies (PROJ aborts on an assertion)."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        try:
            data = json.dumps([answer(i) for i in infos]).encode()
            with os.fdopen(w, 'wb') as f:
                f.write(data)
        finally:
            os._exit(0)
    os.close(w)
    with os.fdopen(r, 'rb') as f:
        data = f.read()
    _, status = os.waitpid(pid, 0)
    return json.loads(data) if status == 0 and data else None


def main():
    infos = sorted(query_crs_info(auth_name='EPSG', allow_deprecated=False), key=lambda i: int(i.code))
    if len(sys.argv) > 1:  # codes given: only those (to look into a family)
        infos = [i for i in infos if i.code in sys.argv[1:]]
    meta = lambda k: (lib.proj_context_get_database_metadata(ctx, k.encode()) or b'').decode()
    about = {'proj': pyproj.proj_version_str, 'pyproj': pyproj.__version__, 'epsg': meta('EPSG.VERSION'), 'total': len(infos)}
    print(json.dumps(about), flush=True)
    # Chunks in forked processes: a CRS on which this PROJ aborts (a registry newer than it can hold a method it
    # does not know: an assertion, not an exception) costs its chunk, which is then halved until it is found.
    # The parent warms PROJ's caches first (the registry's tables), so that each child starts warm.
    answer(infos[0])
    for start in range(0, len(infos), CHUNK):
        print(json.dumps({'answers': answers_of(infos[start:start + CHUNK])}), flush=True)


def answers_of(infos):
    """The answers for `infos`, each CRS on which PROJ aborts answered as such."""
    got = in_child(infos)
    if got is not None:
        return got
    if len(infos) == 1:
        i = infos[0]
        return [{'code': int(i.code), 'type': i.type.name, 'name': i.name, 'status': 'crash',
                 'reason': f'PROJ {pyproj.proj_version_str} aborts on it (a method of the newer registry it does not know)'}]
    half = len(infos) // 2
    return answers_of(infos[:half]) + answers_of(infos[half:])


main()
