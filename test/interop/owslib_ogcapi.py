#!/usr/bin/python3
# OWSLib's OGC API client (owslib.ogcapi) reading /ogc: the landing page, the conformance declaration and the
# collections, each collection by id. Prints one JSON report; any error is printed with its traceback, exit 1.
# usage: owslib_ogcapi.py <landing page URL with ?key=...>
import json
import sys
import traceback

from owslib.ogcapi.features import Features
from owslib.util import http_get

url = sys.argv[1]
try:
    # OWSLib 0.27 requests the landing page without the URL's query string (it keeps the query, here the key,
    # for the requests after it), so the landing page is fetched with OWSLib's own http_get and handed over as
    # json_, OWSLib's documented way to give it a landing page; it then follows its links itself.
    landing = http_get(url)
    landing.raise_for_status()
    api = Features(url, json_=landing.text)
    conformance = api.conformance()
    collections = api.collections()
    ids = [c['id'] for c in collections.get('collections', [])]
    print(json.dumps({
        'links': api.links,
        'conformsTo': conformance.get('conformsTo', []),
        'collections': ids,
        'collectionTitles': {i: api.collection(i).get('title') for i in ids},
    }))
except Exception as err:  # report, do not hide
    print(json.dumps({'error': repr(err), 'traceback': traceback.format_exc()}))
    sys.exit(1)
