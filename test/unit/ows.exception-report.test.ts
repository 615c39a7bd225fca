import { buildOwsExceptionReport, OWS_EXCEPTION_STATUS } from '../../src/ogc/ows-exception';
import { gatedTest } from '../helpers/clients';
import { EXCEPTION_SCHEMA_CHECK, EXCEPTION_XSD, validateXml } from '../helpers/ows-exception';

// The OWS 1.1 ExceptionReport builder against literal documents, and the documents against owsExceptionReport.xsd.

const HEAD =
  '<?xml version="1.0" encoding="UTF-8"?>\n' +
  '<ows:ExceptionReport xmlns:ows="http://www.opengis.net/ows/1.1" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" ' +
  'xsi:schemaLocation="http://www.opengis.net/ows/1.1 http://schemas.opengis.net/ows/1.1.0/owsExceptionReport.xsd" version="1.0.0" xml:lang="en">\n';

const tileOutOfRange = buildOwsExceptionReport([{ code: 'TileOutOfRange', locator: 'TileRow', text: 'TileRow 8 is outside 2 to 5' }]);
const twoAndEscaped = buildOwsExceptionReport([
  { code: 'MissingParameterValue', locator: 'service', text: 'Missing parameter: service' },
  { code: 'InvalidParameterValue', locator: 'a"<&>\'b', text: 'Unknown layer "<x&y>" \u0001' },
]);
const noLocator = buildOwsExceptionReport([{ code: 'VersionNegotiationFailed', text: 'None of 1.1.0 is supported' }]);

test('one exception with its code, locator and text', () => {
  expect(tileOutOfRange).toBe(
    `${HEAD}  <ows:Exception exceptionCode="TileOutOfRange" locator="TileRow">\n    <ows:ExceptionText>TileRow 8 is outside 2 to 5</ows:ExceptionText>\n  </ows:Exception>\n</ows:ExceptionReport>\n`,
  );
});

test('several exceptions in order; text and locators escaped, control characters dropped', () => {
  expect(twoAndEscaped).toBe(
    `${HEAD}` +
      '  <ows:Exception exceptionCode="MissingParameterValue" locator="service">\n    <ows:ExceptionText>Missing parameter: service</ows:ExceptionText>\n  </ows:Exception>\n' +
      '  <ows:Exception exceptionCode="InvalidParameterValue" locator="a&quot;&lt;&amp;&gt;&apos;b">\n    <ows:ExceptionText>Unknown layer &quot;&lt;x&amp;y&gt;&quot; </ows:ExceptionText>\n  </ows:Exception>\n' +
      '</ows:ExceptionReport>\n',
  );
});

test('no locator attribute where the code has none; another version', () => {
  expect(noLocator).toContain('<ows:Exception exceptionCode="VersionNegotiationFailed">\n');
  expect(buildOwsExceptionReport([{ code: 'NoApplicableCode', text: 'x' }], '1.1.0')).toContain(' version="1.1.0" xml:lang="en">');
  expect(() => buildOwsExceptionReport([])).toThrow(RangeError);
});

test('the status of each code in a KVP answer (07-057r7 Tables 21 and 24, 06-121r3 Table 28)', () => {
  expect(OWS_EXCEPTION_STATUS).toEqual({
    OperationNotSupported: 501,
    MissingParameterValue: 400,
    InvalidParameterValue: 400,
    VersionNegotiationFailed: 400,
    InvalidUpdateSequence: 400,
    OptionNotSupported: 501,
    TileOutOfRange: 400,
    NoApplicableCode: 500,
  });
});

const schemaTest = gatedTest('xmllint with the OWS 1.1 exception report XSD', EXCEPTION_SCHEMA_CHECK);

schemaTest.each([
  ['one exception', tileOutOfRange],
  ['two, escaped', twoAndEscaped],
  ['no locator', noLocator],
])('%s validates against owsExceptionReport.xsd', (_label, xml) => {
  const r = validateXml(xml, EXCEPTION_XSD);
  expect(r.out).toContain('validates');
  expect(r.ok).toBe(true);
});

schemaTest('the validation is not vacuous: a report without exceptionCode fails', () => {
  expect(validateXml(tileOutOfRange.replace(' exceptionCode="TileOutOfRange"', ''), EXCEPTION_XSD).ok).toBe(false);
});
