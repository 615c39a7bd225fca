import json, math, sys
from pyproj import CRS, Transformer
from pyproj.database import query_crs_info
from pyproj.enums import PJType
infos = sorted(query_crs_info(auth_name='EPSG', pj_types=[PJType.PROJECTED_CRS], allow_deprecated=False), key=lambda i: int(i.code))
step = max(1, len(infos) // 300)
out = []
for info in infos[::step]:
    code = int(info.code)
    try:
        crs = CRS.from_epsg(code)
        geod = crs.geodetic_crs
        base = geod.to_epsg()
        a = info.area_of_use
        if base is None or a is None or geod.axis_info[0].unit_name != 'degree': continue
        w, e = a.west, a.east
        if e < w: e += 360
        pts = [((w + e) / 2, (a.south + a.north) / 2), ((w + e) / 2 + (e - w) / 8, (a.south + a.north) / 2 + (a.north - a.south) / 8)]
        pts = [((x + 180) % 360 - 180, y) for x, y in pts]
        fwd = Transformer.from_crs(geod, crs, always_xy=True)
        proj = [fwd.transform(x, y) for x, y in pts]
        back = [fwd.transform(x, y, direction='INVERSE') for x, y in proj]
        if not all(math.isfinite(v) for p in proj + back for v in p): continue
        out.append({'code': code, 'base': base, 'geog': pts, 'proj': proj, 'back': back, 'proj4': crs.to_proj4(),
                    'factor': crs.axis_info[0].unit_conversion_factor})
    except Exception:
        continue
json.dump(out, sys.stdout)
