// The mirror's defaults that the configuration file and the `mirror` command share (a scheduled job and a run
// from the command line behave alike). A module of its own: the command line reads it without loading the parser.

/**
 * The most requests in flight when none is asked for. The adaptive limit (mirror/upstream/concurrency.ts) starts at
 * 8 and climbs towards it only while the upstream answers faster for it. An upstream 50 ms away answers a 20 KB
 * tile in ~60 ms, so 64 in flight give at most ~1,050 tiles/s where the link gives ~1,230 to 64 connections: 128
 * leave room.
 */
export const DEFAULT_CONCURRENCY = 128;
