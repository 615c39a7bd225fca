#!/usr/bin/python3
"""QGIS as a WMTS client, run by qgis-wmts.interop.test.ts with /usr/bin/python3 (Debian's python3-qgis, QGIS 3.22).

    qgis_wmts.py <out dir> <plan json>

The plan is a JSON list of jobs, run in order in one QGIS session (QgsApplication with its GUI classes on Qt's
offscreen platform, so the Add Layer dialog can be driven too); one JSON document is printed: the QGIS version and
the result of each job. Errors are reported in the JSON, not raised, so the test can show them.

Jobs:
  {"op": "browser", "url": <capabilities url>}
      The Browser panel's reading: a WMS/WMTS connection to <url> (saved in the settings as QGIS does), its items
      listed recursively (name, path, the layer source QGIS would add).
  {"op": "dialog", "url": <capabilities url>, "layer": <identifier>, "dimensions": {<identifier>: <value>}}
      The Add Layer dialog (Layer > Add WMS/WMTS Layer): Connect, the Tilesets tab's rows, pick the row of <layer>,
      Add. When QGIS asks for dimension values (its "Select Dimensions" dialog) the rows it shows are reported and
      <dimensions> chosen in it; the layer source the dialog emits is reported.
  {"op": "layer", "uri": <wms provider source>, "blocks": [{"extent": [minx, miny, maxx, maxy], "width": w,
   "height": h}], "render": {"extent": [...], "width": w, "height": h, "time": <ISO 8601, optional>}}
      QgsRasterLayer(uri, name, "wms"): valid, CRS, extent, bands, temporal properties and the provider's temporal
      capabilities; each block read with dataProvider().block(1, extent, w, h) and written to <out dir> as raw
      RGBA bytes; "render" renders the layer with QgsMapRendererSequentialJob on a map of <extent> in w x h pixels
      whose temporal range is <time> .. <time> (what the Temporal Controller does; without "time" the map is not
      temporal) and writes the image as raw RGBA.
      Every network request QGIS makes (capabilities, tiles) is listed with its HTTP status, per step.

The session has a private home (the test sets HOME), so QGIS's settings and network disk cache start empty.
"""
import json
import os
import sys
import traceback

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from qgis.core import (  # noqa: E402
    Qgis,
    QgsApplication,
    QgsDateTimeRange,
    QgsLayerItem,
    QgsMapRendererSequentialJob,
    QgsMapSettings,
    QgsNetworkAccessManager,
    QgsNetworkReplyContent,
    QgsNetworkRequestParameters,
    QgsRasterLayer,
    QgsRectangle,
    QgsSettings,
)
from qgis.PyQt.QtCore import QDateTime, QSize, Qt, QTimer  # noqa: E402
from qgis.PyQt.QtGui import QImage  # noqa: E402
from qgis.PyQt.QtNetwork import QNetworkRequest  # noqa: E402
from qgis.PyQt.QtWidgets import QApplication, QComboBox, QPushButton, QTableWidget  # noqa: E402

APP = QgsApplication([], True)  # with its GUI classes (the Add Layer dialog), on the offscreen platform
QgsApplication.setPrefixPath("/usr", True)
QgsApplication.initQgis()


class Requests:
    """Every request through QgsNetworkAccessManager (the WMS provider's capabilities and tile downloads, from any
    thread: the signals of other threads arrive through the event loop, hence flush())."""

    def __init__(self):
        self.all = {}
        self.order = []
        nam = QgsNetworkAccessManager.instance()
        nam.requestAboutToBeCreated[QgsNetworkRequestParameters].connect(self._created)
        nam.finished[QgsNetworkReplyContent].connect(self._finished)

    def _created(self, params):
        rid = params.requestId()
        self.all[rid] = {"url": params.request().url().toString(), "status": None}
        self.order.append(rid)

    def _finished(self, reply):
        entry = self.all.get(reply.requestId())
        if entry is not None:
            status = reply.attribute(QNetworkRequest.HttpStatusCodeAttribute)
            entry["status"] = int(status) if status is not None else None
            if reply.error():
                entry["error"] = reply.errorString()

    def mark(self):
        self.flush()
        return len(self.order)

    def since(self, mark):
        self.flush()
        return [self.all[rid] for rid in self.order[mark:]]

    @staticmethod
    def flush():
        for _ in range(5):
            APP.processEvents()


REQUESTS = Requests()
KEEP = []


def save_connection(url):
    name = "tilemirror"
    s = QgsSettings()
    s.setValue("qgis/connections-wms/%s/url" % name, url)
    s.setValue("qgis/connections-wms/selected", name)
    return name


def rgba_file(out_dir, name, data, width, height):
    """Raw ARGB32 pixels (QRgb: 0xAARRGGBB, little-endian bytes B, G, R, A) as RGBA bytes in a file."""
    buf = bytearray(data)
    if len(buf) != width * height * 4:
        raise ValueError("%s: %d bytes for %dx%d pixels" % (name, len(buf), width, height))
    buf[0::4], buf[2::4] = buf[2::4], buf[0::4]
    path = os.path.join(out_dir, name + ".rgba")
    with open(path, "wb") as f:
        f.write(bytes(buf))
    return path


def browser(job, out_dir, index):
    save_connection(job["url"])
    registry = QgsApplication.dataItemProviderRegistry()
    provider = next(p for p in registry.providers() if p.name() == "WMS")
    root = provider.createDataItem("", None)
    items = []

    def walk(item, depth):
        # The WMS items are made when their parent is populated; createChildren() does that synchronously.
        # Every item is kept alive until the process ends: QGIS 3.22 crashes when Python frees them.
        children = list(item.children()) or item.createChildren()
        KEEP.append(children)
        for child in children:
            entry = {"name": child.name(), "path": child.path(), "depth": depth, "type": type(child).__name__}
            if isinstance(child, QgsLayerItem):
                entry["uri"] = child.uri()
                entry["provider"] = child.providerKey()
            items.append(entry)
            if not isinstance(child, QgsLayerItem) and depth < 6:
                walk(child, depth + 1)

    walk(root, 0)
    return {"root": root.name(), "items": items}


def dialog(job, out_dir, index):
    from qgis.gui import QgsGui

    save_connection(job["url"])
    widget = QgsGui.sourceSelectProviderRegistry().providerByName("wms").createDataSourceWidget()
    result = {"widget": widget.metaObject().className(), "dimensionsDialog": None, "added": []}
    mark = REQUESTS.mark()
    widget.findChild(QPushButton, "btnConnect").click()
    result["requests"] = REQUESTS.since(mark)
    table = widget.findChild(QTableWidget, "lstTilesets")
    headers = [table.horizontalHeaderItem(c).text() for c in range(table.columnCount())]
    rows = []
    for r in range(table.rowCount()):
        rows.append({headers[c]: (table.item(r, c).text() if table.item(r, c) else None) for c in range(table.columnCount())})
    result["tilesets"] = rows
    wanted = [r for r in range(table.rowCount()) if table.item(r, 0).text() == job["layer"]]
    if not wanted:
        result["error"] = "no row of %s in the Tilesets tab" % job["layer"]
        return result
    table.selectRow(wanted[0])

    widget.addRasterLayer.connect(lambda uri, name, key: result["added"].append({"uri": uri, "name": name, "provider": key}))
    choose = job.get("dimensions", {})

    def answer():
        # QGIS 3.22 asks for the dimension values in a modal dialog (QgsWmtsDimensions) when the layer has any.
        modal = QApplication.activeModalWidget()
        if modal is None:
            if not answer.closed:
                QTimer.singleShot(20, answer)
            return
        found = {"class": modal.metaObject().className(), "title": modal.windowTitle(), "rows": []}
        dims = modal.findChild(QTableWidget, "mDimensions")
        for r in range(dims.rowCount() if dims else 0):
            combo = dims.cellWidget(r, 4)
            row = {
                "identifier": dims.item(r, 0).text(),
                "title": dims.item(r, 1).text(),
                "abstract": dims.item(r, 2).text(),
                "default": dims.item(r, 3).text(),
                "values": [combo.itemText(i) for i in range(combo.count())] if isinstance(combo, QComboBox) else None,
                "preselected": combo.currentText() if isinstance(combo, QComboBox) else None,
            }
            found["rows"].append(row)
            value = choose.get(row["identifier"])
            if value is not None and isinstance(combo, QComboBox):
                combo.setCurrentIndex(combo.findText(value))
        result["dimensionsDialog"] = found
        modal.accept()

    answer.closed = False
    QTimer.singleShot(0, answer)
    widget.addButtonClicked()
    answer.closed = True
    return result


def layer(job, out_dir, index):
    mark = REQUESTS.mark()
    lyr = QgsRasterLayer(job["uri"], "layer%d" % index, "wms")
    result = {"uri": job["uri"], "valid": lyr.isValid(), "openRequests": REQUESTS.since(mark)}
    if not lyr.isValid():
        # (QgsRasterLayer.error() of a valid layer crashes QGIS 3.22: only asked for here)
        result["error"] = lyr.error().summary()
        return result
    provider = lyr.dataProvider()
    ext = lyr.extent()
    caps = provider.temporalCapabilities()
    available = caps.availableTemporalRange() if caps.hasTemporalCapabilities() else None
    props = lyr.temporalProperties()
    result.update(
        {
            "crs": lyr.crs().authid(),
            "extent": [ext.xMinimum(), ext.yMinimum(), ext.xMaximum(), ext.yMaximum()],
            "bandCount": provider.bandCount(),
            "dataType": int(provider.dataType(1)),
            "argb32": int(provider.dataType(1)) == int(Qgis.ARGB32),
            "temporal": {
                "providerHasTemporalCapabilities": caps.hasTemporalCapabilities(),
                "availableTemporalRange": [available.begin().toString(Qt.ISODate), available.end().toString(Qt.ISODate)] if available else None,
                "layerTemporalPropertiesActive": props.isActive(),
            },
            "blocks": [],
        }
    )
    for b, spec in enumerate(job.get("blocks", [])):
        entry = {"extent": spec["extent"], "width": spec["width"], "height": spec["height"]}
        try:
            mark = REQUESTS.mark()
            block = provider.block(1, QgsRectangle(*spec["extent"]), spec["width"], spec["height"])
            entry["requests"] = REQUESTS.since(mark)
            entry["valid"] = block.isValid()
            entry["dataType"] = int(block.dataType())
            entry["file"] = rgba_file(out_dir, "job%d-block%d" % (index, b), block.data(), block.width(), block.height())
        except Exception as e:  # reported to the test
            entry["error"] = "%s: %s" % (type(e).__name__, e)
            entry["traceback"] = traceback.format_exc(limit=3)
        result["blocks"].append(entry)
    spec = job.get("render")
    if spec:
        entry = {"time": spec.get("time")}
        try:
            settings = QgsMapSettings()
            settings.setLayers([lyr])
            settings.setDestinationCrs(lyr.crs())
            settings.setOutputSize(QSize(spec["width"], spec["height"]))
            settings.setExtent(QgsRectangle(*spec["extent"]))
            settings.setOutputDpi(96)
            if spec.get("time"):
                t = QDateTime.fromString(spec["time"], Qt.ISODate)
                settings.setIsTemporal(True)
                settings.setTemporalRange(QgsDateTimeRange(t, t))
            mark = REQUESTS.mark()
            render = QgsMapRendererSequentialJob(settings)
            render.start()
            render.waitForFinished()
            entry["requests"] = REQUESTS.since(mark)
            entry["errors"] = [e.message for e in render.errors()]
            image = render.renderedImage().convertToFormat(QImage.Format_ARGB32)
            ptr = image.constBits()
            ptr.setsize(image.sizeInBytes())
            entry["file"] = rgba_file(out_dir, "job%d-render" % index, bytes(ptr), image.width(), image.height())
            entry["width"], entry["height"] = image.width(), image.height()
        except Exception as e:  # reported to the test
            entry["error"] = "%s: %s" % (type(e).__name__, e)
            entry["traceback"] = traceback.format_exc(limit=3)
        result["render"] = entry
    return result


OPS = {"browser": browser, "dialog": dialog, "layer": layer}


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    out_dir, plan = sys.argv[1], json.loads(sys.argv[2])
    results = []
    for index, job in enumerate(plan):
        try:
            results.append(OPS[job["op"]](job, out_dir, index))
        except Exception as e:  # reported to the test
            results.append({"error": "%s: %s" % (type(e).__name__, e), "traceback": traceback.format_exc(limit=5)})
    json.dump({"qgisVersion": Qgis.QGIS_VERSION, "results": results}, sys.stdout)
    sys.stdout.write("\n")
    sys.stdout.flush()
    # Python freeing the Browser's items at exit crashes QGIS 3.22 (a segmentation fault after the report):
    # leave without tearing anything down.
    os._exit(0)


if __name__ == "__main__":
    sys.exit(main())
