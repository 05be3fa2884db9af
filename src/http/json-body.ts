import express, { type RequestHandler } from 'express';
import { jsonTextDeeperThan, MAX_JSON_DEPTH, nestedDeeperThan, tooDeepReason } from '../lib/nesting.js';
import { ApiError } from '../lib/errors.js';

/**
 * express.json, and a body nested deeper than MAX_JSON_DEPTH refused at once with 400
 * VALIDATION_ERROR. JSON.parse itself reads any depth; what comes after it does not (the
 * validator, JSON.stringify when the world is stored or listed), so a body 5,000 deep once
 * became a record that answered 500 on every later read (decision 0026). Every JSON body the
 * server reads comes through here: the pipeline's and the scenario rules' alike.
 */
export function jsonBody(limit: string | number, depth = MAX_JSON_DEPTH): RequestHandler {
  // UTF-8's depth is read from the bytes before they are parsed: a walk of a parsed body of 15,000
  // keys cost more than its parse (decision 0057). Another charset's body is walked once parsed.
  const readFromBytes = new WeakMap<object, boolean>();
  const verify = (req: object, _res: unknown, bytes: Buffer, encoding: string) => {
    if (encoding === 'utf-8') readFromBytes.set(req, jsonTextDeeperThan(bytes, depth));
  };
  const json = express.json({ limit, type: ['application/json', 'application/*+json'], verify });
  return (req, res, next) => {
    json(req, res, (error?: unknown) => {
      if (error === undefined && (readFromBytes.get(req) ?? nestedDeeperThan(req.body, depth))) {
        // Nothing after the refusal (the journal, the dashboard's live view) may walk it either.
        req.body = {};
        return next(new ApiError(400, 'VALIDATION_ERROR', `${tooDeepReason('The body', depth)}.`, { param: 'body' }));
      }
      next(error);
    });
  };
}
