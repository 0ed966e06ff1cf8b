/** The tolerant reading of a config's text on disk: the rule set's, re-exported for the project's readers. */
export { readConfigSummary, tolerantTree } from '../rules/configSummary';
