// The default connection cap derives from the process's open-file limit, read from /proc/self/limits.

import { defaultMaxConnections, openFileLimit } from '../../src/http/connection-limit';

const LIMITS = `Limit                     Soft Limit           Hard Limit           Units
Max cpu time              unlimited            unlimited            seconds
Max open files            1024                 524288               files
Max locked memory         8388608              8388608              bytes
`;

test('the soft open-file limit is read from the limits table', () => {
  expect(openFileLimit(LIMITS)).toBe(1024);
  expect(openFileLimit(LIMITS.replace('1024                 524288', 'unlimited            unlimited'))).toBeUndefined();
  expect(openFileLimit('no such table')).toBeUndefined();
});

test.each([
  [1024, 819],
  [20000, 16000],
  [256, 192],
  [128, 64],
  [50, 16],
])('an fd limit of %d caps connections at %d', (limit, cap) => {
  expect(defaultMaxConnections(limit)).toBe(cap);
});

test('no known limit, no cap', () => {
  expect(defaultMaxConnections(undefined)).toBeUndefined();
});
