import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { ConfigError } from './config-error';
import { DEFAULT_INDEX_DIR } from './index-dir';
import { configSchema, keySchema, type ApiKey, type Config } from './schema';

// Commands import these from basics.ts, which loads this module only when a file is read; callers that load the
// parser anyway may take them from here.
export { ConfigError, DEFAULT_INDEX_DIR };

/** Turns zod issues into lines naming the bad field, e.g. `keys[0].plan: Invalid option: expected one of "free"|"paid"`. */
function describeIssues(error: z.ZodError, source: string): string {
  const lines = error.issues.map((issue) => {
    const path = issue.path
      .map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? String(p) : `.${String(p)}`))
      .join('');
    return `  ${path || '(top level)'}: ${issue.message}`;
  });
  return `invalid configuration in ${source}:\n${lines.join('\n')}`;
}

/** Parses `key[:plan]` entries separated by commas (or newlines) from an environment variable. */
export function keysFromEnv(value: string | undefined, varName: string): ApiKey[] {
  if (!value) return [];
  return value
    .split(/[,\n]/)
    .map((s) => s.trim())
    .filter(Boolean)
    .map((entry, i) => {
      const [key, plan] = entry.split(':');
      const parsed = keySchema.safeParse({ key, name: `${varName}[${i}]`, ...(plan ? { plan } : {}) });
      if (!parsed.success) throw new ConfigError(describeIssues(parsed.error, `environment variable ${varName} entry ${i + 1}`));
      return parsed.data;
    });
}

/** Validates a configuration object; `baseDir` anchors a relative data directory. */
export function parseConfig(raw: unknown, source: string, baseDir: string, env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = configSchema.safeParse(raw ?? {});
  if (!parsed.success) throw new ConfigError(describeIssues(parsed.error, source));
  const config = parsed.data;
  config.data = resolve(baseDir, config.data);
  config.indexDir = config.indexDir === undefined ? DEFAULT_INDEX_DIR : resolve(baseDir, config.indexDir);
  // Mirror jobs' area files are relative to the config file, like the data directory.
  for (const job of config.mirror.jobs) job.areas = job.areas.map((a) => resolve(baseDir, a));
  if (config.geolocation.database) config.geolocation.database = resolve(baseDir, config.geolocation.database);
  if (config.coordinates.gridDir) config.coordinates.gridDir = resolve(baseDir, config.coordinates.gridDir);
  config.keys = [...config.keys, ...keysFromEnv(env[config.keysEnv], config.keysEnv)];
  const seen = new Set<string>();
  config.keys.forEach((k, i) => {
    if (seen.has(k.key)) throw new ConfigError(`invalid configuration in ${source}:\n  keys[${i}].key: duplicate key`);
    seen.add(k.key);
  });
  return config;
}

/** Loads a YAML or JSON configuration file (YAML is a superset of JSON, so one parser reads both). */
export function loadConfig(file: string, env: NodeJS.ProcessEnv = process.env): Config {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new ConfigError(`cannot read configuration file ${file}: ${(err as Error).message}`);
  }
  let raw: unknown;
  try {
    raw = parseYaml(text);
  } catch (err) {
    throw new ConfigError(`configuration file ${file} is not valid YAML/JSON: ${(err as Error).message}`);
  }
  return parseConfig(raw, file, dirname(resolve(file)), env);
}
