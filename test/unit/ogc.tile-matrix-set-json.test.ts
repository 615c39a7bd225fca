import { definedGrid, registeredGrid } from '../../src/geo/grids';
import { webMercatorQuad } from '../../src/geo/tile-matrix-set';
import { gridTileMatrixSetJson, tileMatrixSetJson } from '../../src/ogc/tile-matrix-set-json';

const O = 20037508.342789244;

describe('tileMatrixSetJson', () => {
  const doc = tileMatrixSetJson(webMercatorQuad(256));

  test('2D-TMS 2.0 keys', () => {
    expect(doc.id).toBe('WebMercatorQuad');
    expect(doc.uri).toBe('http://www.opengis.net/def/tilematrixset/OGC/1.0/WebMercatorQuad');
    expect(doc.crs).toBe('http://www.opengis.net/def/crs/EPSG/0/3857');
    expect(doc.orderedAxes).toEqual(['X', 'Y']);
    expect(doc.wellKnownScaleSet).toBe('http://www.opengis.net/def/wkss/OGC/1.0/GoogleMapsCompatible');
    expect(doc.tileMatrices).toHaveLength(25);
    expect(doc.tileMatrices[0]).toMatchObject({
      id: '0',
      scaleDenominator: 559082264.0287178,
      cellSize: 156543.03392804097,
      cornerOfOrigin: 'topLeft',
      pointOfOrigin: [-O, O],
      tileWidth: 256,
      tileHeight: 256,
      matrixWidth: 1,
      matrixHeight: 1,
    });
  });

  test('17-083r2 keys GDAL 3.6 reads', () => {
    expect(doc.type).toBe('TileMatrixSetType');
    expect(doc.identifier).toBe('WebMercatorQuad');
    expect(doc.supportedCRS).toBe('http://www.opengis.net/def/crs/EPSG/0/3857');
    expect(doc.boundingBox).toMatchObject({ type: 'BoundingBoxType', lowerCorner: [-O, -O], upperCorner: [O, O] });
    expect(doc.tileMatrix).toHaveLength(25);
    expect(doc.tileMatrix[3]).toMatchObject({
      type: 'TileMatrixType',
      identifier: '3',
      scaleDenominator: 69885283.00358972,
      topLeftCorner: [-O, O],
      matrixWidth: 8,
      matrixHeight: 8,
    });
  });

  test('scale denominators strictly decrease (GDAL rejects otherwise)', () => {
    for (let i = 1; i < doc.tileMatrix.length; i++) {
      expect(doc.tileMatrix[i].scaleDenominator).toBeLessThan(doc.tileMatrix[i - 1].scaleDenominator);
    }
  });

  test('GDAL detection strings are present in the serialized JSON', () => {
    const s = JSON.stringify(doc);
    for (const needle of ['"crs"', '"tileMatrices"', '"identifier"', '"boundingBox"', '"tileMatrix"', '"TileMatrixSetType"']) {
      expect(s).toContain(needle);
    }
  });

  test('512 px and zoom-cut sets', () => {
    const d512 = tileMatrixSetJson(webMercatorQuad(512));
    expect(d512.id).toBe('WebMercatorQuad512');
    expect(d512.wellKnownScaleSet).toBeUndefined();
    expect(d512.tileMatrix[0].scaleDenominator).toBe(279541132.0143589);
    const cut = tileMatrixSetJson(webMercatorQuad(512, 0, 5));
    expect(cut.id).toBe('WebMercatorQuad512-z0-5');
    expect(cut.identifier).toBe(cut.id);
    expect(cut.uri).toBeUndefined();
    expect(cut.tileMatrices.map((m) => m.id)).toEqual(['0', '1', '2', '3', '4', '5']);
  });
});

describe('gridTileMatrixSetJson: a grid besides Web Mercator in the same keys', () => {
  test("UTM31WGS84Quad as the OGC registry's JSON gives it (registry/json/UTM31WGS84Quad.json): matrices from 1, easting first", () => {
    const doc = gridTileMatrixSetJson(registeredGrid('UTM31WGS84Quad')!);
    expect(doc).toMatchObject({
      id: 'UTM31WGS84Quad',
      title: 'Universal Transverse Mercator Zone 31 WGS84 Quad',
      uri: 'http://www.opengis.net/def/tilematrixset/OGC/1.0/UTM31WGS84Quad',
      crs: 'http://www.opengis.net/def/crs/EPSG/0/32631',
      orderedAxes: ['E', 'N'],
    });
    expect(doc.tileMatrices).toHaveLength(24);
    const first = doc.tileMatrices[0];
    expect(first).toMatchObject({ id: '1', cornerOfOrigin: 'topLeft', pointOfOrigin: [-9501965.72931276, 20003931.4586255], tileWidth: 256, tileHeight: 256, matrixWidth: 1, matrixHeight: 2 });
    expect(first.cellSize).toBeCloseTo(78140.3572602559, 9);
    expect(first.scaleDenominator).toBeCloseTo(279072704.500914, 5);
    const z20 = doc.tileMatrices[19];
    expect(z20).toMatchObject({ id: '20', matrixWidth: 524288, matrixHeight: 1048576 });
    expect(z20.cellSize).toBeCloseTo(0.149040903587829, 14);
    expect(z20.scaleDenominator).toBeCloseTo(532.288941385105, 11);
    // 17-083r2's keys: the same values under the names GDAL 3.6 reads.
    expect(doc).toMatchObject({ type: 'TileMatrixSetType', identifier: 'UTM31WGS84Quad', supportedCRS: 'http://www.opengis.net/def/crs/EPSG/0/32631' });
    expect(doc.tileMatrix[0]).toMatchObject({ type: 'TileMatrixType', identifier: '1', topLeftCorner: [-9501965.72931276, 20003931.4586255] });
  });

  test('every point in the CRS\'s axis order: northing first for EuropeanETRS89_LAEAQuad, as the registry writes its origin', () => {
    const doc = gridTileMatrixSetJson(registeredGrid('EuropeanETRS89_LAEAQuad')!);
    expect(doc.orderedAxes).toEqual(['Y', 'X']);
    expect(doc.tileMatrices.every((m) => m.pointOfOrigin[0] === 5500000 && m.pointOfOrigin[1] === 2000000)).toBe(true);
    expect(doc.boundingBox).toMatchObject({ lowerCorner: [1000000, 2000000], upperCorner: [5500000, 6500000], lowerLeft: [1000000, 2000000], upperRight: [5500000, 6500000] });
  });

  test("an operator's grid: no uri, axes named by their order, the box its matrices cover, scale denominators strictly decreasing", () => {
    const base = { id: 'Mine', crs: 2056, origin: [2420000, 1350000] as [number, number], extent: [2420000, 1030000, 2900000, 1350000] as [number, number, number, number], tileSize: 256, resolutions: [1000, 500, 300], area: [5.96, 45.82, 10.49, 47.81] as [number, number, number, number], geographic: false };
    const doc = gridTileMatrixSetJson(definedGrid({ ...base, northFirst: false }));
    expect(doc.uri).toBeUndefined();
    expect(doc.orderedAxes).toEqual(['E', 'N']);
    // 480 km by 320 km, rounded up to whole tiles: the widest matrix is the last (7 tiles of 76.8 km), the tallest the
    // first (2 tiles of 256 km).
    expect(doc.tileMatrices.map((m) => [m.matrixWidth, m.matrixHeight])).toEqual([[2, 2], [4, 3], [7, 5]]);
    expect(doc.boundingBox).toMatchObject({ lowerCorner: [2420000, 1350000 - 512000], upperCorner: [2420000 + 537600, 1350000] });
    for (let i = 1; i < doc.tileMatrix.length; i++) expect(doc.tileMatrix[i].scaleDenominator).toBeLessThan(doc.tileMatrix[i - 1].scaleDenominator);
    const northFirst = gridTileMatrixSetJson(definedGrid({ ...base, northFirst: true }));
    expect(northFirst.orderedAxes).toEqual(['N', 'E']);
    expect(northFirst.tileMatrices[0].pointOfOrigin).toEqual([1350000, 2420000]);
    expect(gridTileMatrixSetJson(definedGrid({ ...base, northFirst: true, geographic: true })).orderedAxes).toEqual(['Lat', 'Lon']);
  });
});
