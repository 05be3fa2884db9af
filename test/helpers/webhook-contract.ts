import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { loadSpec } from '../../src/http/spec.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

const spec = loadSpec('openapi.yaml');
const ajv = new Ajv({ strict: false, allErrors: true, validateSchema: false });
addFormats(ajv);
ajv.addSchema(spec.document as object, 'openapi');

const CALLBACK_URL = '{$request.body#/url}';

interface CallbackOperation {
  requestBody: { content: { 'application/json': { schema: unknown; example: { event: string; data: Record<string, unknown> } } } };
}

function callbacks(): Record<string, Record<string, { post: CallbackOperation }>> {
  const paths = spec.document.paths as unknown as Record<string, { post: { callbacks: Record<string, Record<string, { post: CallbackOperation }>> } }>;
  return paths['/v1/webhooks']?.post.callbacks ?? {};
}

/** The events openapi.yaml documents as callbacks of createWebhook. */
export const CALLBACK_EVENTS = Object.keys(callbacks());

/** The contract's example body of an event. */
export function exampleBody(event: string): { event: string; data: Record<string, unknown> } {
  const operation = callbacks()[event]?.[CALLBACK_URL]?.post;
  if (!operation) throw new Error(`openapi.yaml has no callback for ${event}`);
  return operation.requestBody.content['application/json'].example;
}

/** The example's `data`: realistic event data to emit in tests. */
export function exampleData(event: string): Record<string, unknown> {
  return structuredClone(exampleBody(event).data);
}

const validators = new Map<string, ValidateFunction>();

function pointerSegment(segment: string): string {
  return encodeURIComponent(segment.replace(/~/g, '~0').replace(/\//g, '~1'));
}

/** Problems of a webhook body against its event's callback schema; empty when it conforms. */
export function payloadProblems(body: unknown): string[] {
  const event = (body as { event?: unknown }).event;
  if (typeof event !== 'string' || !CALLBACK_EVENTS.includes(event)) return [`unknown event ${String(event)}`];
  let validate = validators.get(event);
  if (!validate) {
    const pointer = ['paths', '/v1/webhooks', 'post', 'callbacks', event, CALLBACK_URL, 'post', 'requestBody', 'content', 'application/json', 'schema'].map(pointerSegment).join('/');
    validate = ajv.compile({ $ref: `openapi#/${pointer}` });
    validators.set(event, validate);
  }
  return validate(body) ? [] : (validate.errors ?? []).map((error) => `${error.instancePath} ${error.message ?? 'is invalid'}`);
}
