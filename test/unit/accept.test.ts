import { acceptsAny } from '../../src/http/accept';

// The Accept header against the media types an answer can have (RFC 9110 §12.5.1).

const XML = ['application/xml', 'text/xml'];

test.each([
  [undefined, true],
  ['', true],
  ['*/*', true],
  ['application/xml', true],
  ['TEXT/XML; charset=utf-8', true],
  ['text/*', true],
  ['application/*;q=0.1', true],
  ['text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8', true],
  [['image/png', 'text/xml'], true],
  ['example/unknown', false],
  ['image/png, application/json', false],
  ['application/xml;q=0, text/xml;q=0.0', false],
  ['*/*;q=0', false],
  ['garbage', false],
] as [string | string[] | undefined, boolean][])('Accept %j → %s', (header, expected) => {
  expect(acceptsAny(header, XML)).toBe(expected);
});
