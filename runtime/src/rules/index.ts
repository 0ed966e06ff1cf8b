/**
 * The rule set for `10xgraph.json`: one pure module that parses the text with positions and
 * returns every problem with its code, severity, range and quick fixes. It imports nothing of
 * LSP, HTTP or the file system; the editor, the CLI and the server start-up all call it.
 */
export * from './types';
export { auditConfig, analyzeConfig, RULESET_VERSION } from './audit';
export type { Analysis, ParsedConfig, RemoteToolSchema } from './audit';
export { applyEdits, applySafeFixes } from './edits';
export { declaredTools, declaredToolsOf } from './declaredTools';
export type { DeclaredTool } from './declaredTools';
export { RULES, ruleDocsAnchor } from './catalog';
export { FILE_FIELDS, RBAC_FIELDS, settingAt, type SettingSpec } from './fields';
export type { RuleInfo } from './catalog';
export { LineIndex } from './lineIndex';
export { escapeControl } from '../text/escapeControl';
export type { JsonNode } from './parse';
export { nodeAtOffset, pathOfNode } from './parse';
export { Tree, Kind, NONE } from './tree';
export { toolNodes } from './context';
export { splitAgentSpec } from './rules/agent-invalid';
export { toolNameProblem } from './rules/invalid-tool-name';
export { configSummaryOf, configSummaryOfNode, innerSpan, readConfigSummary, tolerantTree } from './configSummary';
export type { ConfigSummary, ImportSummary, StringSpan, ToolSummary } from './configSummary';
export { agentGraphOf, missingAttributeSentence, pythonAgentGraphOf, readFromSourceNote } from './project';
export type { AgentGraph, NameSet, ProjectConfigInput, ProjectFacts, ProjectRule, ProjectSourceInput, PythonModuleNames, SourceNameFact, SourceNodeFact } from './project';
export { auditProjectConfig, auditProjectSource } from './auditProject';
export { PROJECT_RULES } from './rules/index';
export { byCloseness } from './similarity';
