"""OWSLib's WebMapService (1.1.1 and 1.3.0) against a WMS: what it reads of the capabilities, and GetMap images.

usage: owslib_wms.py URL OUTDIR REQUESTS_JSON
REQUESTS_JSON: [{"version", "layer", "srs", "bbox": [minx, miny, maxx, maxy] (x first, as OWSLib takes it), "size", "format", "name"}]
Prints one JSON report on stdout.
"""
import json
import os
import sys
import traceback

from owslib.wms import WebMapService

url, outdir, requests = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
report = {"services": {}, "images": {}}
for version in ("1.1.1", "1.3.0"):
    try:
        wms = WebMapService(url, version=version)
        report["services"][version] = {
            "type": wms.identification.type,
            "version": wms.identification.version,
            "title": wms.identification.title,
            "operations": [op.name for op in wms.operations],
            "formats": wms.getOperationByName("GetMap").formatOptions,
            "layers": {
                name: {"title": layer.title, "crs": sorted(layer.crsOptions), "bbox": list(layer.boundingBoxWGS84) if layer.boundingBoxWGS84 else None, "styles": sorted(layer.styles)}
                for name, layer in wms.contents.items()
            },
        }
    except Exception as e:  # reported, the test says what failed
        report["services"][version] = {"error": str(e), "traceback": traceback.format_exc()}
for r in requests:
    try:
        wms = WebMapService(url, version=r["version"])
        img = wms.getmap(layers=[r["layer"]], styles=[""], srs=r["srs"], bbox=tuple(r["bbox"]), size=tuple(r["size"]), format=r["format"])
        path = os.path.join(outdir, r["name"] + ".png")
        with open(path, "wb") as f:
            f.write(img.read())
        report["images"][r["name"]] = {"file": path, "url": img.geturl()}
    except Exception as e:
        report["images"][r["name"]] = {"error": str(e), "traceback": traceback.format_exc()}
print(json.dumps(report))
