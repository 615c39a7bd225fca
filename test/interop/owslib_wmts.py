#!/usr/bin/python3
"""OWSLib as a WMTS client, run by owslib.interop.test.ts with /usr/bin/python3 (Debian's python3-owslib).

    owslib_wmts.py <capabilities url> <out dir> [<layer>|<matrix set>|<tile matrix>|<row>|<col>[|<Dimension>=<value>...] ...]

Reads the capabilities with WebMapTileService, fetches each tile twice, with gettile() (KVP, as OWSLib does when
the service offers KVP) and through the layer's RESTful ResourceURL (buildTileResource), writes the bytes into
<out dir> and prints one JSON document: what OWSLib understood of the capabilities and where each tile went.
Errors are reported in the JSON, not raised, so the test can show them.

Sample dimensions (a weather layer's Time): OWSLib 0.27 (Debian's) parses no <Dimension> of a WMTS layer (its
ContentMetadata has no `dimensions`); where the layer has no such attribute they are read from the capabilities
document OWSLib fetched and parsed (getServiceXML()), and "dimensionsFrom" says which. A tile at a dimension value
is asked for as OWSLib users do: gettile(..., Time=value) (OWSLib appends keyword arguments to the KVP request),
and the ResourceURL's {Time} filled like its other variables.
"""
import json
import os
import sys
import traceback
from xml.etree import ElementTree

from owslib.util import openURL
from owslib.wmts import WebMapTileService

WMTS_NS = "{http://www.opengis.net/wmts/1.0}"
OWS_NS = "{http://www.opengis.net/ows/1.1}"


def tile_matrix_set(tms):
    return {
        "crs": tms.crs,
        "matrices": [
            {
                "identifier": tm.identifier,
                "scaledenominator": tm.scaledenominator,
                "topleftcorner": list(tm.topleftcorner) if tm.topleftcorner else None,
                "tilewidth": tm.tilewidth,
                "tileheight": tm.tileheight,
                "matrixwidth": tm.matrixwidth,
                "matrixheight": tm.matrixheight,
            }
            for tm in tms.tilematrix.values()
        ],
    }


def text_of(elem, tag):
    child = elem.find(tag)
    return child.text if child is not None else None


def dimensions_from_document(wmts, layer_id):
    """The <Dimension>s of a layer in the capabilities document OWSLib parsed."""
    root = ElementTree.fromstring(wmts.getServiceXML())
    for lyr in root.iter(WMTS_NS + "Layer"):
        if text_of(lyr, OWS_NS + "Identifier") != layer_id:
            continue
        return [
            {
                "identifier": text_of(d, OWS_NS + "Identifier"),
                "uom": text_of(d, OWS_NS + "UOM"),
                "default": text_of(d, WMTS_NS + "Default"),
                "current": text_of(d, WMTS_NS + "Current"),
                "values": [v.text for v in d.findall(WMTS_NS + "Value")],
            }
            for d in lyr.findall(WMTS_NS + "Dimension")
        ]
    return []


def layer(wmts, lid, lyr):
    dims = getattr(lyr, "dimensions", None)
    return {
        "title": lyr.title,
        "formats": list(lyr.formats),
        "styles": list(lyr.styles.keys()),
        "tilematrixsets": list(lyr.tilematrixsetlinks.keys()),
        "boundingBoxWGS84": list(lyr.boundingBoxWGS84) if lyr.boundingBoxWGS84 else None,
        "resourceURLs": lyr.resourceURLs,
        "dimensionsFrom": "owslib" if dims is not None else "capabilities document",
        "dimensions": dims if dims is not None else dimensions_from_document(wmts, lid),
    }


def fetch(out_dir, name, fn):
    result = {}
    try:
        url, response = fn()
        result["url"] = url
        data = response.read()
        path = os.path.join(out_dir, name)
        with open(path, "wb") as f:
            f.write(data)
        result["file"] = path
        result["bytes"] = len(data)
        info = getattr(response, "info", None)
        if callable(info):
            result["contentType"] = info().get("Content-Type")
    except Exception as e:  # reported to the test
        result["error"] = "%s: %s" % (type(e).__name__, e)
        result["traceback"] = traceback.format_exc(limit=3)
    return result


def main():
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    caps_url, out_dir, specs = sys.argv[1], sys.argv[2], sys.argv[3:]

    wmts = WebMapTileService(caps_url)
    report = {
        "url": wmts.url,
        "identification": {
            "type": wmts.identification.type,
            "version": wmts.identification.version,
            "title": wmts.identification.title,
            "abstract": wmts.identification.abstract,
            "keywords": list(wmts.identification.keywords),
            "fees": wmts.identification.fees,
            "accessconstraints": wmts.identification.accessconstraints,
        },
        "provider": {"name": wmts.provider.name, "url": wmts.provider.url},
        "restonly": wmts.restonly,
        "operations": [op.name for op in wmts.operations],
        "layers": {lid: layer(wmts, lid, lyr) for lid, lyr in wmts.contents.items()},
        "tilematrixsets": {tid: tile_matrix_set(t) for tid, t in wmts.tilematrixsets.items()},
        "tiles": [],
    }

    for i, spec in enumerate(specs):
        lid, tms, tm, row, col, *dim_specs = spec.split("|")
        dims = dict(d.split("=", 1) for d in dim_specs)
        entry = {"spec": spec}

        def kvp():
            return None, wmts.gettile(layer=lid, tilematrixset=tms, tilematrix=tm, row=int(row), column=int(col), **dims)

        def rest():
            templates = [r for r in wmts[lid].resourceURLs if r["resourceType"] == "tile"]
            if len(templates) <= 1:
                url = wmts.buildTileResource(layer=lid, tilematrixset=tms, tilematrix=tm, row=int(row), column=int(col))
            else:
                # buildTileResource picks one of several templates at random: take the PNG one, filled the same way.
                png = [r for r in templates if r["format"] == "image/png"] or templates
                style = list(wmts[lid].styles.keys())[0]
                url = (png[0]["template"].replace("{TileMatrixSet}", tms).replace("{TileMatrix}", tm)
                       .replace("{TileRow}", row).replace("{TileCol}", col).replace("{Style}", style))
            if url is None:
                raise ValueError("layer %s has no RESTful tile ResourceURL" % lid)
            for name, value in dims.items():
                url = url.replace("{%s}" % name, value)
            return url, openURL(url, timeout=30)

        entry["kvp"] = fetch(out_dir, "tile-%d-kvp" % i, kvp)
        entry["rest"] = fetch(out_dir, "tile-%d-rest" % i, rest)
        report["tiles"].append(entry)

    json.dump(report, sys.stdout, default=str)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
