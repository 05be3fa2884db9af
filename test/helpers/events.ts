import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { expect } from 'vitest';
import type { DomainEvent } from '../../src/events/catalog.js';
import { loadSpec } from '../../src/http/spec.js';

// ajv-formats is CommonJS; under NodeNext its default export arrives wrapped.
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

/** The schema of each event's `data` in openapi.yaml (WebhookEvent's description). */
const DATA_SCHEMAS: Record<string, string> = {
  'comment.received': 'CommentEventData',
  'comment.replied': 'CommentEventData',
  'message.received': 'MessageEventData',
  'message.sent': 'MessageEventData',
  'conversation.started': 'ConversationEventData',
  'review.new': 'ReviewEventData',
  'automation.triggered': 'AutomationEventData',
  'automation.failed': 'AutomationEventData',
};

let ajv: Ajv | undefined;
const validators = new Map<string, ValidateFunction>();

function validatorFor(schema: string): ValidateFunction {
  if (!ajv) {
    ajv = new Ajv({ strict: false, allErrors: true, validateSchema: false });
    addFormats(ajv);
    ajv.addSchema(loadSpec('openapi.yaml').document as object, 'openapi');
  }
  let validate = validators.get(schema);
  if (!validate) {
    validate = ajv.compile({ $ref: `openapi#/components/schemas/${schema}` });
    validators.set(schema, validate);
  }
  return validate;
}

/** Asserts that an event's data is what the contract says webhooks receive for it. */
export function expectEventDataInContract(event: DomainEvent): void {
  const schema = DATA_SCHEMAS[event.event];
  expect(schema, `no data schema known for ${event.event}`).toBeDefined();
  const validate = validatorFor(schema as string);
  const valid = validate(event.data);
  expect(valid, `${event.event} data breaks ${schema}: ${JSON.stringify(validate.errors)}`).toBe(true);
}
