// MirroredLabels under the module path other parts still import it by.
export { MirroredLabels, mayHoldLabels, type LabelLog, type MirroredLabelsOptions } from './labels-mirrored'; // TEMP-ALIAS module services/geocoding/labels-source
