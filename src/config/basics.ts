// What commands need of the configuration without reading a file: its error type and the default index folder.
// The parser (load.ts: YAML, the zod schemas, node-cron's validator) is ~0.1 s of CPU to load, which `mirror` with
// flags, `plan` and `bundle` would pay at every start for nothing; `loadConfig` and `parseConfig` here load it on
// first use. (require, not import(): this is CommonJS, and import() would not run under ts-jest.)

import type * as Load from './load';

export { ConfigError } from './config-error';
export { DEFAULT_INDEX_DIR } from './index-dir';

const parser = (): typeof Load => require('./load') as typeof Load;

export const loadConfig: typeof Load.loadConfig = (...args) => parser().loadConfig(...args);
export const parseConfig: typeof Load.parseConfig = (...args) => parser().parseConfig(...args);
