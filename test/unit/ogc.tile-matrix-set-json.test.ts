import { webMercatorQuad } from '../../src/geo/tile-matrix-set';
import { tileMatrixSetJson } from '../../src/ogc/tile-matrix-set-json';

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
