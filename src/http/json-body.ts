import express, { type RequestHandler } from 'express';
import { MAX_JSON_DEPTH, nestedDeeperThan, tooDeepReason } from '../lib/nesting.js';
import { ApiError } from '../lib/errors.js';

/**
 * express.json, and a body nested deeper than MAX_JSON_DEPTH refused at once with 400
 * VALIDATION_ERROR. JSON.parse itself reads any depth; what comes after it does not (the
 * validator, JSON.stringify when the world is stored or listed), so a body 5,000 deep once
 * became a record that answered 500 on every later read (decision 0026). Every JSON body the
 * server reads comes through here: the pipeline's and the scenario rules' alike.
 */
export function jsonBody(limit: string | number, depth = MAX_JSON_DEPTH): RequestHandler {
  const json = express.json({ limit, type: ['application/json', 'application/*+json'] });
  return (req, res, next) => {
    json(req, res, (error?: unknown) => {
      if (error === undefined && nestedDeeperThan(req.body, depth)) {
        // Nothing after the refusal (the journal, the dashboard's live view) may walk it either.
        req.body = {};
        return next(new ApiError(400, 'VALIDATION_ERROR', `${tooDeepReason('The body', depth)}.`, { param: 'body' }));
      }
      next(error);
    });
  };
}
