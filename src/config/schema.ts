import { z } from 'zod';

// One schema for the whole configuration file; every field has a default so an empty file is valid.
// Unknown keys are rejected (strict) so a typo such as `prot: 80` is reported instead of silently ignored.

const originPattern = z
  .string()
  .min(1)
  .regex(/^(https?:\/\/)?(\*\.)?[A-Za-z0-9.-]+(:\d+)?$/, 'an origin like https://example.com, example.com or *.example.com');

export const keySchema = z
  .object({
    /** The secret clients send as `?key=`. */
    key: z.string().min(4, 'a key needs at least 4 characters').regex(/^[\x21-\x7e]+$/, 'printable ASCII without spaces'),
    name: z.string().min(1).optional(),
    /** Allowed HTTP origins, checked against Origin or Referer; `*.domain` allows subdomains. Empty: any origin. */
    allowedOrigins: z.array(originPattern).default([]),
    /** A substring the User-Agent must contain. */
    allowedUserAgent: z.string().min(1).optional(),
    /** `free` keys cannot render static maps (spec: a paid plan is required). */
    plan: z.enum(['free', 'paid']).default('free'),
  })
  .strict();

export const configSchema = z
  .object({
    server: z
      .object({
        host: z.string().min(1).default('127.0.0.1'),
        port: z.number().int().min(0).max(65535).default(8080),
        /** Public base URL (behind a proxy); otherwise taken from the request and X-Forwarded-* headers. */
        publicUrl: z.url({ protocol: /^https?$/ }).optional(),
        /** Trust X-Forwarded-Proto/Host/Prefix headers. */
        trustProxy: z.boolean().default(true),
        /** Log one line per request. */
        requestLog: z.boolean().default(true),
      })
      .strict()
      .default({ host: '127.0.0.1', port: 8080, trustProxy: true, requestLog: true }),
    /** Data directory holding the stores; relative paths are resolved against the config file's folder. */
    data: z.string().min(1).default('mirror'),
    keys: z.array(keySchema).default([]),
    /** Name of an environment variable with more keys: `key[:plan]` separated by commas. */
    keysEnv: z.string().min(1).default('TILEMIRROR_KEYS'),
    /** Cache-Control max-age (seconds) of tiles and documents. */
    cache: z
      .object({
        tilesMaxAge: z.number().int().min(0).default(86400),
        documentsMaxAge: z.number().int().min(0).default(300),
        /** Memory for hot tiles (MB), shared by all stores; 0 reads every tile from SQLite. */
        memoryMb: z.number().min(0).max(65536).default(48),
      })
      .strict()
      .default({ tilesMaxAge: 86400, documentsMaxAge: 300, memoryMb: 48 }),
    fonts: z
      .object({
        /** Fonts tried, in order, for a glyph no font of the requested stack has (a font that is not mirrored). */
        fallback: z.array(z.string().min(1)).default(['Noto Sans Regular']),
      })
      .strict()
      .default({ fallback: ['Noto Sans Regular'] }),
    logLevel: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  })
  .strict();

export type ApiKey = z.infer<typeof keySchema>;
export type Config = z.infer<typeof configSchema>;
