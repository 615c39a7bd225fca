#!/usr/bin/python3
"""QGIS opening a GeoPackage tile pyramid as a raster layer, run by export-gpkg.test.ts with /usr/bin/python3
(Debian's python3-qgis, QGIS 3.22).

    qgis_gpkg.py <file.gpkg>

Prints one JSON document: the QGIS version, and what QgsRasterLayer(<file>, 'x', 'gdal') says of the file: valid,
its error when not, its CRS (authid), its extent, its size in pixels and band count.
"""
import json
import os
import sys

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from qgis.core import Qgis, QgsApplication, QgsRasterLayer  # noqa: E402

APP = QgsApplication([], False)
QgsApplication.setPrefixPath("/usr", True)
QgsApplication.initQgis()

layer = QgsRasterLayer(sys.argv[1], "x", "gdal")
e = layer.extent()
report = {
    "qgisVersion": Qgis.QGIS_VERSION,
    "valid": layer.isValid(),
    "error": layer.error().summary() if not layer.isValid() else None,
    "crs": layer.crs().authid(),
    "extent": [e.xMinimum(), e.yMinimum(), e.xMaximum(), e.yMaximum()],
    "size": [layer.width(), layer.height()],
    "bandCount": layer.bandCount(),
}
print(json.dumps(report))
sys.stdout.flush()
# Tearing QGIS 3.22 down at exit ends in a segmentation fault after the report (as in qgis_wmts.py): leave at once.
os._exit(0)
