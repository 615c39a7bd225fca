// Validates an OpenAPI document (a JSON file) with @seriousme/openapi-schema-validator, an ES module, so it runs
// as its own node process. Prints {"valid": bool, "version": ..., "errors": [...]} and exits 0 either way.
import { Validator } from '@seriousme/openapi-schema-validator';

const validator = new Validator();
const result = await validator.validate(process.argv[2]);
console.log(JSON.stringify({ valid: result.valid, version: validator.version, errors: result.errors ?? [] }));
