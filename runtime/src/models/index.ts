/**
 * Chat models for the model node: the interface, a scripted stand-in, and an OpenAI-compatible client.
 */
export * from './types';
export { ScriptedModel, describeOutcomes } from './scriptedModel';
export type { ScriptRule, ScriptedModelOptions, ScriptFunction, ToolOutcome } from './scriptedModel';
export { OpenAIChatModel, toChatCompletionMessages } from './openAIChatModel';
export type { OpenAIChatModelOptions, ChatCompletionMessage } from './openAIChatModel';
