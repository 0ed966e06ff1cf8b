import type { Rule } from '../context';
import type { ProjectRule } from '../project';
import { rootNotObject } from './root-not-object';
import { agentMissing } from './agent-missing';
import { agentInvalid } from './agent-invalid';
import { agentNotFound } from './agent-not-found';
import { remoteToolsNotList } from './remote-tools-not-list';
import { toolNotObject } from './tool-not-object';
import { unknownField } from './unknown-field';
import { missingField } from './missing-field';
import { notAString } from './not-a-string';
import { blankField } from './blank-field';
import { duplicateName } from './duplicate-name';
import { parametersNotObject } from './parameters-not-object';
import { parametersTypeNotObject } from './parameters-type-not-object';
import { propertiesNotObject } from './properties-not-object';
import { requiredNotStringList } from './required-not-string-list';
import { nodeNotFound } from './node-not-found';
import { nodeNotToolNode } from './node-not-tool-node';
import { nameConflictsWithServerTool } from './name-conflicts-with-server-tool';
import { duplicateKey } from './duplicate-key';
import { requiredNotInProperties } from './required-not-in-properties';
import { invalidToolName } from './invalid-tool-name';
import { invalidPropertySchema } from './invalid-property-schema';
import { vagueDescription } from './vague-description';
import { toolNotAttached } from './tool-not-attached';
import { settingWrongType } from './setting-wrong-type';
import { settingOutOfRange } from './setting-out-of-range';
import { settingUnknownValue } from './setting-unknown-value';
import { invalidImportPath } from './invalid-import-path';
import { invalidNetwork } from './invalid-network';
import { authInvalid } from './auth-invalid';
import { settingInvalid } from './setting-invalid';
import { unknownKey } from './unknown-key';
import { envVarNotSet } from './env-var-not-set';
import { envFileMissing } from './env-file-missing';
import { moduleNotFound } from './module-not-found';
import { settingNotApplied } from './setting-not-applied';
import { rateLimitPerProcess } from './rate-limit-per-process';
import { rateLimitBackendUnbound } from './rate-limit-backend-unbound';
import { rbacNoRoles } from './rbac-no-roles';
import { nothingTraced } from './nothing-traced';
import { agentNotImportable } from './agent-not-importable';
import { untrimmedField } from './untrimmed-field';
import { rawTypescriptKeyword } from './raw-typescript-keyword';
import { handlerMissing } from './handler-missing';
import { handlerUndeclared } from './handler-undeclared';
import { graphNotRead } from './graph-not-read';
import { moduleAttributeMissing } from './module-attribute-missing';

/** Every rule run on a parsed text (`invalid-json` is judged by the parse itself). */
export const ALL_RULES: readonly Rule[] = [
  duplicateKey,
  rootNotObject,
  agentMissing,
  agentInvalid,
  agentNotFound,
  remoteToolsNotList,
  toolNotObject,
  unknownField,
  missingField,
  notAString,
  blankField,
  duplicateName,
  parametersNotObject,
  parametersTypeNotObject,
  propertiesNotObject,
  requiredNotStringList,
  requiredNotInProperties,
  invalidPropertySchema,
  invalidToolName,
  vagueDescription,
  nodeNotFound,
  nodeNotToolNode,
  nameConflictsWithServerTool,
  toolNotAttached,
  settingWrongType,
  settingOutOfRange,
  settingUnknownValue,
  invalidImportPath,
  invalidNetwork,
  authInvalid,
  settingInvalid,
  unknownKey,
  envVarNotSet,
  envFileMissing,
  moduleNotFound,
  settingNotApplied,
  rateLimitPerProcess,
  rateLimitBackendUnbound,
  rbacNoRoles,
  nothingTraced,
  agentNotImportable,
  untrimmedField,
  rawTypescriptKeyword,
];

/** Every rule run on the project's facts, beside a config or a source (`auditProjectConfig`, `auditProjectSource`). */
export const PROJECT_RULES: readonly ProjectRule[] = [handlerMissing, handlerUndeclared, graphNotRead, moduleAttributeMissing];
