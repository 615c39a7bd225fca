/** A configuration that cannot be read or is invalid: the message names the file and the bad field. */
export class ConfigError extends Error {}
